"""Untuned defaults against the tuned best, a 10 s guided search against a sweep, and peers, in one
process (issue 18: "defaults >= 0.9x the tuned best; 10 s tuning within 3% of the sweep").

Phases, in this order, the JSON rewritten after each (a run cut short keeps what it measured):
  1. guided searches of --tune-budget seconds on the --tuned cases, from cold Triton and tessel caches,
     compiling ahead on --workers processes (what `kernel.tune(..., compile_workers=N)` does);
  2. every candidate of every case's sweep domain compiled ahead on one process pool;
  3. per case: the untuned call (the user's path: declared defaults, covering BLOCK, WARPS following
     it) checked against torch, then the exhaustive sweep of the domain (the tuner with no budget
     limit: each candidate checked against the default on fresh inputs, then timed);
  4. per case, head to head, alternating (median of 3 rounds of CUDA-graph medians, inputs rotated
     through copies when they fit in L2, as the tuner times): defaults, the sweep's winner, the
     guided winner, and the peers (torch eager, torch.compile for the large rows, cuBLAS for GEMM).
Row sweeps cover BLOCK in {N/4, N/2, N} x WARPS in {1..16} at the declared STAGES (STAGES moved the
2026-11-30 softmax sweep by <= 0.2%); GEMM sweeps the tiles and switches around the 2026-11-30 winners.
    TESSEL_BIN=scratch/bin/tessel PYTHONPATH=python:bench python3 bench/defaults.py --out $OUT
`--smoke` runs the plumbing on tiny CPU shapes under TRITON_INTERPRET=1 (no timing).
"""
import argparse
import datetime
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples"), str(ROOT / "bench")]

GEMM_DOMAIN = {"TILE_0": [128, 256], "TILE_1": [128, 256], "TILE_K": [64], "WARPS": [8], "STAGES": [3, 4],
               "GROUP_0": [8], "PERSIST": [1, 2], "TMA": [1], "FLATTEN": [0, 1]}
TUNED = ("softmax f32 16384x8192", "layernorm bf16 16384x8192", "matmul bf16 8192x8192x8192",
         "matmul bf16 4096x4096x4096")
COMPILE_PEER = ("softmax f32 16384x8192", "layernorm f32 16384x8192")


def say(text):
    print(text, file=sys.stderr, flush=True)


def cases(torch, smoke: bool):
    """(label, kernel, views, scalars, outputs, reference, tolerance, domain) of every bench case."""
    import argmax, layernorm, matmul, rmsnorm, row_kernels, softmax  # noqa: E401
    device = "cpu" if smoke else "cuda"

    def nonzero(*shape, dtype=torch.float32):
        x = torch.rand(*shape, device=device) * 0.75 + 0.25
        return (x * torch.where(torch.rand(*shape, device=device) < 0.5, -1.0, 1.0)).to(dtype)
    eps = 1e-5
    kernels = {
        ("softmax", torch.float32): softmax.softmax, ("softmax", torch.bfloat16): row_kernels.softmax_bf16,
        ("layernorm", torch.float32): layernorm.layernorm, ("layernorm", torch.bfloat16): row_kernels.layernorm_bf16,
        ("rmsnorm", torch.float32): rmsnorm.rmsnorm, ("rmsnorm", torch.bfloat16): row_kernels.rmsnorm_bf16,
        ("rowsum", torch.float32): row_kernels.rowsum, ("rowsum", torch.bfloat16): row_kernels.rowsum_bf16,
        ("argmax", torch.float32): argmax.argmax, ("argmax", torch.bfloat16): row_kernels.argmax_bf16,
    }
    shapes = [(8, 64), (8, 256)] if smoke else [(4096, 1024), (16384, 8192)]
    for (name, dtype), k in kernels.items():
        for M, N in shapes:
            label = f"{name} {'f32' if dtype == torch.float32 else 'bf16'} {M}x{N}"
            x = nonzero(M, N, dtype=dtype)
            w, b = nonzero(N, dtype=dtype), nonzero(N, dtype=dtype)
            tol = (2e-2, 1e-2) if dtype == torch.bfloat16 else (1e-4, 0.0)
            if name == "softmax":
                views, scalars, outs, ref = [x, torch.empty_like(x)], {}, [1], lambda v: [torch.softmax(v[0].float(), 1)]
            elif name == "layernorm":
                views, scalars, outs = [x, w, b, torch.empty_like(x)], {"eps": eps}, [3]
                ref = lambda v: [torch.nn.functional.layer_norm(v[0].float(), (v[0].shape[1],), v[1].float(),  # noqa: E731
                                                                 v[2].float(), eps)]
            elif name == "rmsnorm":
                views, scalars, outs = [x, w, torch.empty_like(x)], {"eps": eps}, [2]
                ref = lambda v: [torch.nn.functional.rms_norm(v[0].float(), (v[0].shape[1],), v[1].float(), eps)]  # noqa: E731
            elif name == "rowsum":
                views, scalars, outs = [x, torch.empty(M, device=device)], {}, [1]
                ref = lambda v: [torch.sum(v[0].float(), 1)]  # noqa: E731
                tol = (1e-2, 1e-4)
            else:
                views = [x, torch.empty(M, device=device, dtype=dtype), torch.empty(M, device=device, dtype=torch.int64)]
                scalars, outs, ref = {}, [2], lambda v: [torch.argmax(v[0], 1)]
                tol = (0.0, 0.0)
            blocks = [b_ for b_ in (N // 4, N // 2, N) if b_ >= 64]
            domain = {"BLOCK": blocks, "WARPS": [1, 2, 4, 8, 16], "STAGES": [3]}
            peer = (lambda v, n=name, e=eps: _torch_op(torch, n, v, e))
            yield dict(label=label, kernel=k, views=views, scalars=scalars, outs=outs, ref=ref, tol=tol,
                       domain=domain, peer=peer, bytes=(2 if name in ("softmax", "layernorm", "rmsnorm") else 1)
                       * x.numel() * x.element_size())
    for M, N, K in ([(64, 64, 64)] if smoke else [(4096, 4096, 4096), (8192, 8192, 8192), (4097, 4095, 1000)]):
        a, b = nonzero(M, K, dtype=torch.bfloat16), nonzero(K, N, dtype=torch.bfloat16)
        views = [a, b, torch.empty(M, N, device=device, dtype=torch.bfloat16)]
        yield dict(label=f"matmul bf16 {M}x{N}x{K}", kernel=matmul.matmul, views=views, scalars={}, outs=[2],
                   ref=lambda v: [v[0].float() @ v[1].float()], tol=(0.25, 2e-2), domain=GEMM_DOMAIN,
                   peer=lambda v: torch.matmul(v[0], v[1]), flops=2 * M * N * K)


def _torch_op(torch, name, v, eps):
    x = v[0]
    if name == "softmax":
        return torch.softmax(x, 1)
    if name == "layernorm":
        return torch.nn.functional.layer_norm(x, (x.shape[1],), v[1], v[2], eps)
    if name == "rmsnorm":
        return torch.nn.functional.rms_norm(x, (x.shape[1],), v[1], eps)
    if name == "rowsum":
        return torch.sum(x, 1, dtype=torch.float32)
    return torch.argmax(x, 1)


def correct(torch, case, views) -> tuple:
    """(ok, max abs error) of the outputs in `views` against the case's torch reference."""
    worst, ok = 0.0, True
    for i, want in zip(case["outs"], case["ref"](views)):
        got = views[i]
        err = (got.double() - want.double()).abs()
        worst = max(worst, err.max().item() if err.numel() else 0.0)
        ok &= bool((err <= case["tol"][0] + case["tol"][1] * want.double().abs()).all())
    return ok, worst


def timer_for(torch, case, launch_of):
    """A function that times `launch_of(views)` as the tuner does (CUDA-graph median, inputs rotated)."""
    from tessel import _tune
    rotation = _tune._rotation(torch, case["views"])
    sets = [[t.clone() for t in case["views"]] for _ in range(rotation)]
    turn = [0]

    def once():
        views = sets[turn[0] % len(sets)]
        turn[0] += 1
        launch_of(views)
    return lambda: _tune._median_ms(torch, once, 10)


def head_to_head(timers: dict) -> dict:
    samples = {k: [] for k in timers}
    for _ in range(3):
        for k, t in timers.items():
            try:
                samples[k].append(t())
            except Exception as e:  # noqa: BLE001 - a peer failing is recorded, not fatal
                samples[k].append(None)
                say(f"  {k}: {type(e).__name__}: {e}"[:300])
    return {k: statistics.median(v) for k, v in samples.items() if all(x is not None for x in v)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    parser.add_argument("--tune-budget", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=max(2, (os.cpu_count() or 4) - 2))
    parser.add_argument("--deadline", type=float, default=230.0, help="seconds after which sweeps are skipped")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    started = time.monotonic()
    if args.smoke:
        os.environ["TRITON_INTERPRET"] = "1"
    for var in ("TRITON_CACHE_DIR", "TESSEL_CACHE"):
        os.environ[var] = tempfile.mkdtemp(prefix=f"defaults-{var.lower()}-")
    import torch
    from tessel import _compile_ahead, _tune
    torch.manual_seed(0)
    doc = {"date": datetime.date.today().isoformat(),
           "device": "cpu (smoke)" if args.smoke else torch.cuda.get_device_name(),
           "torch": torch.__version__, "what": __doc__.split("\n\n")[0], "method": __doc__.split("\n\n")[1],
           "tune_budget_s": args.tune_budget, "workers": args.workers, "results": []}
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{doc['date']}-h200-defaults.json"

    def write():
        doc["wall_s"] = round(time.monotonic() - started, 1)
        path.write_text(json.dumps(doc, indent=1) + "\n")

    all_cases = list(cases(torch, args.smoke))
    entries = {c["label"]: {"case": c["label"]} for c in all_cases}
    doc["results"] = list(entries.values())
    tuned = TUNED if not args.smoke else ()  # the tuner times on a CUDA device
    # 1. Guided searches from cold caches (the default is compiled in the search's own time).
    for case in all_cases:
        if case["label"] not in tuned:
            continue
        e = entries[case["label"]]
        try:
            t0 = time.monotonic()
            winner, report = _tune.tune(case["kernel"], case["views"], case["scalars"], {},
                                        budget_s=args.tune_budget, verbose=False,
                                        compile_workers=0 if args.smoke else args.workers)
            e["guided"] = {"winner": winner, "wall_s": round(time.monotonic() - t0, 1),
                           **{k: report.get(k) for k in ("timed", "pruned", "skipped_for_budget", "winner_ms",
                                                         "default_ms", "compile_ahead")},
                           "rejected": [f"{p}: {w}"[:200] for p, w in report.get("rejected", [])]}
            say(f"guided {case['label']}: {winner} {report.get('winner_ms')} ms in {e['guided']['wall_s']} s")
        except Exception as ex:  # noqa: BLE001
            e["guided_error"] = f"{type(ex).__name__}: {ex}"[:500]
            say(traceback.format_exc())
        write()
    # 2. Every sweep candidate compiled ahead on one pool.
    if not args.smoke:
        pool, t0 = _compile_ahead.ProcessPool(args.workers), time.monotonic()
        keys = []
        for case in all_cases:
            _, default, viable, _ = _tune.candidates(case["kernel"], {}, case["domain"], tensors=case["views"])
            for p in viable:
                key = (case["label"], tuple(sorted(p.items())))
                try:
                    warm = case["kernel"]._warmup({}, p)
                    pool.submit(key, _compile_ahead.warm_job(warm, case["views"], case["scalars"]))
                    keys.append(key)
                except Exception as ex:  # noqa: BLE001 - the sweep compiles and reports it
                    say(f"warm {key}: {type(ex).__name__}: {ex}"[:200])
        for key in keys:
            pool.wait(key)
        doc["compile_ahead"] = dict(pool.close(), wall_s=round(time.monotonic() - t0, 1))
        say(f"compiled ahead: {doc['compile_ahead']}")
        write()
    # 3. Defaults (the user's call, checked) and the sweep of each case, the large shapes first (a
    # deadline skips the remaining sweeps and leaves time for phase 4).
    for case in sorted(all_cases, key=lambda c: ("16384" not in c["label"] and "matmul" not in c["label"])):
        e, k, views, scalars = entries[case["label"]], case["kernel"], case["views"], case["scalars"]
        try:
            e["defaults"] = k.call_defaults(*views, **scalars)
            for i in case["outs"]:
                views[i].fill_(float("nan")) if views[i].is_floating_point() else views[i].fill_(-1)
            k(*views, **scalars)
            e["defaults_correct"], e["defaults_max_abs_err"] = correct(torch, case, views)
            e["sweep_candidates"] = len(_tune.candidates(k, {}, case["domain"], tensors=views)[2])
            if args.smoke or time.monotonic() - started > args.deadline:
                e["sweep"] = "skipped: past the deadline" if not args.smoke else "skipped: smoke"
                continue
            t0 = time.monotonic()
            best, report = _tune.tune(k, views, scalars, {}, budget_s=600.0, verbose=False, keep_times=True,
                                      domain=case["domain"])
            e["sweep"] = {"winner": best, "wall_s": round(time.monotonic() - t0, 1), "timed": report["timed"],
                          "pruned": report["pruned"], "winner_ms": report.get("winner_ms"),
                          "rejected": [f"{p}: {w}"[:200] for p, w in report.get("rejected", [])],
                          "all_ms": sorted(([p, ms] for p, ms in report["times"]), key=lambda t: t[1])}
            say(f"sweep {case['label']}: defaults {e['defaults']} -> {best} in {e['sweep']['wall_s']} s")
        except Exception as ex:  # noqa: BLE001
            e["error"] = f"{type(ex).__name__}: {ex}"[:500]
            say(traceback.format_exc())
        write()
    if args.smoke:
        return 0
    # 4. Head to head: defaults, the sweep's and the guided winners, peers.
    for case in all_cases:
        e, k, scalars = entries[case["label"]], case["kernel"], case["scalars"]
        if "error" in e:
            continue
        try:
            timers = {"defaults": timer_for(torch, case, lambda v: k(*v, **scalars))}
            for phase in ("sweep", "guided"):
                if isinstance(e.get(phase), dict):
                    launch = k._launcher({}, e[phase]["winner"])
                    timers[phase] = timer_for(torch, case, lambda v, launch=launch: launch(*v, **scalars))
            timers["torch"] = timer_for(torch, case, case["peer"])
            if case["label"] in COMPILE_PEER:
                compiled = torch.compile(case["peer"], dynamic=False)
                compiled(case["views"])
                timers["torch.compile"] = timer_for(torch, case, compiled)
            same = isinstance(e.get("guided"), dict) and isinstance(e.get("sweep"), dict) and \
                e["guided"]["winner"] == e["sweep"]["winner"]
            if same:  # one binary: timed once, so the ratio is not the spread of two samples of it
                del timers["guided"]
            e["ms"] = head_to_head(timers)
            ms = e["ms"]
            if same:
                ms["guided"], e["guided_same_as_sweep"] = ms["sweep"], True
            best = min(ms[p] for p in ("sweep", "guided", "defaults") if p in ms)
            e["defaults_vs_best"] = best / ms["defaults"]  # >= 0.9 is the bar
            if "guided" in ms and "sweep" in ms:
                e["guided_vs_sweep"] = ms["sweep"] / ms["guided"]  # >= 0.97 is the bar
            for peer in ("torch", "torch.compile"):
                if peer in ms:
                    e[f"defaults_vs_{peer}"] = ms[peer] / ms["defaults"]
            if "flops" in case:
                e["defaults_TFLOPs"] = case["flops"] / ms["defaults"] / 1e9
            if "bytes" in case:
                e["defaults_TBps"] = case["bytes"] / ms["defaults"] / 1e9
            say(f"{case['label']}: " + ", ".join(f"{n} {v:.4f}" for n, v in ms.items()) +
                f"; defaults/best {e['defaults_vs_best']:.3f}")
        except Exception as ex:  # noqa: BLE001
            e["timing_error"] = f"{type(ex).__name__}: {ex}"[:500]
            say(traceback.format_exc())
        write()
    write()
    say(f"wrote {path} ({doc['wall_s']} s)")
    for e in doc["results"]:
        print(f"{e['case']:34s} {e.get('defaults_vs_best', float('nan')):6.3f} "
              f"{e.get('guided_vs_sweep', float('nan')):6.3f} {e.get('defaults')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
