"""`target="auto"` against the Triton and cuTile providers on a CUDA machine (issue 17).

For bf16 GEMM 4096^3 and 8192^3 and the f32 row kernels (softmax, layernorm, rmsnorm) at 16384x8192, in one
process: `kernel.tune(..., target="auto")` (the tuner's own search over both providers, in a narrowed
domain), then correctness of the three paths against torch (the auto call, the Triton winner, the cuTile
winner), then their device time beside torch's (cuBLAS for the GEMM), measured alternately in rounds
(CUDA-graph replay, the tuner's timer). Every candidate is compiled ahead on worker processes first
(`--workers`), since each cuTile candidate is one tileiras run on the GPU machine's CPU.

Two phases, so the GPU machine needs neither MLIR nor a tessel build:

    # here (CPU, with build/bin/tessel): every source the searches and calls need, in a source cache
    python3 bench/auto_check.py gen --out DIR          # DIR: an ignored folder of the checkout that travels
    # on the H200 (torch, triton; cuda.tile and its toolchain from cutile-toolchain.sh unpack)
    python3 DIR/bench/auto_check.py check --carry DIR --json OUT.json

The generated set is staged at /tmp/tessel-auto on both machines, so the traced KIR (which records each
op's file and line) and hence every source-cache key is the same there; `check` copies DIR there and sets
the compiler version the sources were made by (the cache keys hold it). A source missing from the set would
need the compiler: the provider or candidate that needs it is then left out or rejected, and shows as such.
"""
import argparse
import datetime
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
STAGE = pathlib.Path("/tmp/tessel-auto")

# (id, example, shapes, scalars, domain of the auto search). The domains narrow each provider to the
# bindings that can win on this H200, so the run fits the device time: Triton's tuned binding
# (lab/results/2026-12-01-h200-cutile-check.json), and cuTile's launch hints around the covering tile:
# WORKER_WARPS 8 (two consumer warp groups: 168 registers a thread at 128x256 where 4 spill 1,792 bytes)
# against cuTile's own 4, and for the rows the OCCUPANCY hints that fit their shared memory (checked
# with tileiras and cuobjdump -res-usage on the CPU before the run).
_GEMM_TRITON = {"FLATTEN": [1], "GROUP_0": [8], "PERSIST": [1], "STAGES": [3], "TILE_0": [128], "TILE_1": [256],
                "TILE_K": [64], "TMA": [1], "WARPS": [8]}
_GEMM_CUTILE = {"TILE_0": [128], "TILE_1": [128, 256], "TILE_K": [64], "PERSIST": [1], "GROUP_0": [8],
                "OCCUPANCY": [0], "NUM_CTAS": [1], "WORKER_WARPS": [0, 8]}
_ROWS_CUTILE = {"BLOCK": [8192], "OCCUPANCY": [0, 2, 4], "NUM_CTAS": [1], "WORKER_WARPS": [4, 8]}
# The norms' weight (and bias) tiles are read alike by every program: whether TMA stages them is the
# declared SHARED_TMA (the cuTile winner is also timed with the other value: `shared_tma_ms`).
_NORM_CUTILE = dict(_ROWS_CUTILE, SHARED_TMA=[0, 1])
CASES = [
    ("matmul_4096", "matmul", {"M": 4096, "N": 4096, "K": 4096}, {},
     {"triton": _GEMM_TRITON, "cutile": _GEMM_CUTILE}),
    ("matmul_8192", "matmul", {"M": 8192, "N": 8192, "K": 8192}, {},
     {"triton": _GEMM_TRITON, "cutile": _GEMM_CUTILE}),
    ("softmax_16384x8192", "softmax", {"M": 16384, "N": 8192}, {},
     {"triton": {"BLOCK": [8192], "STAGES": [4], "WARPS": [8]}, "cutile": _ROWS_CUTILE}),
    ("layernorm_16384x8192", "layernorm", {"M": 16384, "N": 8192}, {"eps": 1e-5},
     {"triton": {"BLOCK": [8192], "STAGES": [2], "WARPS": [16]}, "cutile": _NORM_CUTILE}),
    ("rmsnorm_16384x8192", "rmsnorm", {"M": 16384, "N": 8192}, {"eps": 1e-5},
     {"triton": {"BLOCK": [8192], "STAGES": [4], "WARPS": [8]}, "cutile": _NORM_CUTILE}),
]


def _auto_kernel(example):
    """A fresh `target="auto"` kernel of examples/EXAMPLE.py (same function, so the same KIR)."""
    import importlib
    from tessel import _kernel
    fn = getattr(importlib.import_module(example), example)
    return _kernel.Kernel(fn.fn, name=fn.name, target="auto", **fn.options)


def gen_inner(manifest_path):
    """Runs staged (PYTHONPATH and TESSEL_CACHE set by `gen`): every source each search and call asks for."""
    from tessel import _cutile, _kernel, _tune
    # Reading the cuTile modules' declared spaces imports cuda.tile (no GPU needed).
    _cutile.toolchain(os.environ.get("TESSEL_CUTILE_TOOLCHAIN",
                                     pathlib.Path.home() / ".cache" / "tessel" / "cutile-toolchain"))
    manifest = {"version": _kernel._compiler_version(), "cases": []}
    for cid, example, shapes, scalars, domain in CASES:
        kernel = _auto_kernel(example)
        row = {"id": cid, "kir": kernel.kir({}), "providers": {}}
        for provider in ("triton", "cutile"):  # PTX needs tessel's CUDA library there, which is not carried
            space = kernel._space({}, provider)
            own = _tune.provider_domain(domain, provider, space)
            _, default, viable, pruned = _tune.candidates(kernel, {}, own, provider)
            for params in viable:
                kernel.source(provider, {}, params)
            row["providers"][provider] = {"declared": {n: v[0] for n, v in space.items()}, "default": default,
                                          "candidates": viable, "pruned": pruned}
            print(f"generated {cid} {provider}: {len(viable)} candidates", flush=True)
        manifest["cases"].append(row)
    pathlib.Path(manifest_path).write_text(json.dumps(manifest, indent=1))


def gen(out, tessel):
    if STAGE.exists():
        shutil.rmtree(STAGE)
    (STAGE / "examples").mkdir(parents=True)
    (STAGE / "bench").mkdir()
    shutil.copytree(ROOT / "python" / "tessel", STAGE / "python" / "tessel",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for _, example, _, _, _ in CASES:
        shutil.copy(ROOT / "examples" / f"{example}.py", STAGE / "examples")
    shutil.copy(__file__, STAGE / "bench" / "auto_check.py")
    env = dict(os.environ, PYTHONPATH=f"{STAGE / 'python'}:{STAGE / 'examples'}", TESSEL_CACHE=str(STAGE / "cache"),
               TESSEL_BIN=str(pathlib.Path(tessel).resolve()))
    subprocess.run([sys.executable, str(STAGE / "bench" / "auto_check.py"), "gen-inner",
                    "--manifest", str(STAGE / "manifest.json")], env=env, check=True)
    out = pathlib.Path(out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(STAGE, out, ignore=shutil.ignore_patterns("__pycache__"))
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"wrote {out} ({size / 1e6:.1f} MB)")


def _inputs(torch, example, shapes):
    """The case's arguments, its torch reference (a function), the tolerance, and the torch peer (the
    same operation through torch: cuBLAS for the GEMM)."""
    torch.manual_seed(0)
    if example == "matmul":
        a = torch.randn(shapes["M"], shapes["K"], device="cuda", dtype=torch.bfloat16)
        b = torch.randn(shapes["K"], shapes["N"], device="cuda", dtype=torch.bfloat16)
        c = torch.empty(shapes["M"], shapes["N"], device="cuda", dtype=torch.bfloat16)
        peer_out = torch.empty_like(c)
        return [a, b, c], (lambda: (a.float() @ b.float())), 2e-2, (lambda: torch.matmul(a, b, out=peer_out))
    x = torch.randn(shapes["M"], shapes["N"], device="cuda")
    w, bias = torch.randn(shapes["N"], device="cuda"), torch.randn(shapes["N"], device="cuda")
    y = torch.empty_like(x)
    n = (shapes["N"],)
    if example == "softmax":
        fn = lambda: torch.softmax(x, 1)  # noqa: E731
    elif example == "layernorm":
        fn = lambda: torch.nn.functional.layer_norm(x, n, w, bias, 1e-5)  # noqa: E731
    else:
        fn = lambda: torch.nn.functional.rms_norm(x, n, w, 1e-5)  # noqa: E731
    args = [x, y] if example == "softmax" else [x, w, bias, y] if example == "layernorm" else [x, w, y]
    return args, fn, 1e-4, fn


def _quartiles(values):
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def _staged(manifest):
    """This process set up as `check` does: the staged sources, the compiler version that made them."""
    sys.path[:0] = [str(STAGE / "python"), str(STAGE / "examples")]
    os.environ["TESSEL_CACHE"] = str(STAGE / "cache")
    from tessel import _kernel
    _kernel._VERSION = manifest["version"]  # the compiler that made the staged sources (not on this machine)


def _case_kernel(manifest, cid, example):
    """The case's `target="auto"` kernel, its KIR pinned to the text the staged sources were made of."""
    kernel = _auto_kernel(example)
    kir = next(c["kir"] for c in manifest["cases"] if c["id"] == cid)
    pinned = kernel.kir({}) != kir  # another Python traced other locations
    if pinned:
        kernel._cache[kernel._key({})] = kir
    return kernel, pinned


_WARM, _STAGED = {}, []


def _warm_one(job):
    """A compile-ahead worker: launches one candidate once on the case's own arguments, so its compiled
    kernel lands in the disk caches (cuTile's, keyed by its bytecode, which the launch specializes on the
    arguments; Triton's) before the tuner asks for it. Returns (job, seconds, error or None)."""
    cid, provider, params = job
    started = time.monotonic()
    try:
        import torch
        manifest = json.loads((STAGE / "manifest.json").read_text())
        if not _STAGED:
            _staged(manifest)
            _STAGED.append(True)
        _, example, shapes, scalars, _ = next(c for c in CASES if c[0] == cid)
        if cid not in _WARM:
            _WARM.clear()  # one case's tensors at a time
            _WARM[cid] = (_case_kernel(manifest, cid, example)[0], _inputs(torch, example, shapes)[0])
        kernel, args = _WARM[cid]
        kernel._launcher({}, params, provider)(*args, **scalars)
        torch.cuda.synchronize()
        return job, round(time.monotonic() - started, 1), None
    except Exception as e:  # noqa: BLE001 - the tuner reports the candidate itself
        return job, round(time.monotonic() - started, 1), f"{type(e).__name__}: {str(e)[-300:]}"


def _compile_ahead(manifest, workers):
    """Every staged candidate of every case compiled once, on `workers` processes (each tileiras or Triton
    compile is one process on the CPU; the tuner would run them one after another)."""
    import multiprocessing
    jobs = [(c["id"], p, params) for c in manifest["cases"] for p, r in c["providers"].items() if p != "ptx"
            for params in r["candidates"]]
    jobs.sort(key=lambda j: j[0])  # a worker keeps one case's tensors
    started = time.monotonic()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        done = pool.map(_warm_one, jobs, chunksize=1)
    errors = [[list(j), err] for j, _, err in done if err]
    return {"jobs": len(jobs), "workers": workers, "wall_s": round(time.monotonic() - started, 1),
            "slowest_s": max((t for _, t, _ in done), default=0), "errors": errors}


def check(carry, json_path, rounds=9, workers=12):
    carry = pathlib.Path(carry).resolve()
    if carry != STAGE:
        if STAGE.exists():
            shutil.rmtree(STAGE)
        shutil.copytree(carry, STAGE)
    manifest = json.loads((STAGE / "manifest.json").read_text())
    _staged(manifest)
    import torch
    from tessel import _cutile, _tune
    results = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "compiler": manifest["version"], "cutile_unavailable": _cutile.unavailable(),
               "method": "every candidate compiled ahead on worker processes (its first launch, into cuTile's and "
                         "Triton's disk caches); then per case kernel.tune(target='auto') in its narrowed domain, "
                         "the auto call, the Triton winner and the cuTile winner checked against torch, then one "
                         f"discarded warm-up round and {rounds} rounds timed alternately by CUDA-graph replay of 10 "
                         "launches (median of 20, the tuner's timer), the torch peer (cuBLAS for the GEMM) among "
                         "them. noise: the interquartile range of the best provider's rounds over their median (at "
                         "least 1%); same_kernel_ratio: the auto call over the provider it chose; *_vs_*: speed "
                         "ratios (the other's time over cuTile's: >= 1 is cuTile as fast or faster)",
               "cases": []}
    if workers > 1:
        results["compile_ahead"] = _compile_ahead(manifest, workers)
        print(f"compiled ahead: {results['compile_ahead']}", flush=True)
    failures = 0
    for cid, example, shapes, scalars, domain in CASES:
        row = {"id": cid, "shapes": shapes}
        print(f"{cid}: tuning target='auto'", flush=True)
        try:
            kernel, pinned = _case_kernel(manifest, cid, example)
            if pinned:
                row["kir_from_gen"] = True
            args, want_fn, tol, peer = _inputs(torch, example, shapes)
            started = time.monotonic()
            choice = kernel.tune(*args, domain=domain, budget_s=90, retune=True, verbose=False, **scalars)
            report = kernel.last_tuning
            row.update(choice=choice, tune_s=round(time.monotonic() - started, 1),
                       head_to_head_ms=report.get("head_to_head_ms"),
                       searched={p: {"timed": r["timed"], "winner": r.get("winner"), "winner_ms": r.get("winner_ms"),
                                     "rejected": [[q, why[:300]] for q, why in r["rejected"]]}
                                 for p, r in report.get("providers", {}).items()},
                       only_provider=report.get("only_provider"))
            winners = {p: kernel._launcher({}, _winner(report, p), p) for p in report.get("providers", {})
                       if report["providers"][p]["timed"]}
            paths = {f"{p}": (lambda f=f: f(*args, **scalars)) for p, f in winners.items()}
            paths["auto"] = lambda: kernel(*args, **scalars)
            want = want_fn().float()
            out = args[-1]
            correct = {}
            for name, fn in paths.items():
                out.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                err = ((out.float() - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()
                correct[name] = {"rel_err": err, "ok": err < tol}
            row["correct"] = correct
            if not all(c["ok"] for c in correct.values()):
                failures += 1
                print(f"FAIL {cid}: {correct}", flush=True)
                results["cases"].append(row)
                continue
            paths["peer"] = peer
            shared = _winner(report, "cutile").get("SHARED_TMA") if "cutile" in winners else None
            if shared is not None:  # the cuTile winner with its shared tiles staged the other way
                flipped = dict(_winner(report, "cutile"), SHARED_TMA=1 - shared)
                flip = kernel._launcher({}, flipped, "cutile")
                out.fill_(float("nan"))
                flip(*args, **scalars)
                torch.cuda.synchronize()
                err = ((out.float() - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()
                row["correct"]["cutile_shared_tma_flipped"] = {"rel_err": err, "ok": err < tol}
                if err < tol:
                    paths["cutile_flipped"] = lambda f=flip: f(*args, **scalars)
            graph = {name: [] for name in paths}
            for fn in paths.values():  # warm-up: clocks and power settle before the rounds that count
                _tune._median_ms(torch, fn, 20)
            names = list(paths)
            for r in range(rounds):  # each round starts one path later
                for name in names[r % len(names):] + names[:r % len(names)]:
                    graph[name].append(_tune._median_ms(torch, paths[name], 20))
            row["graph_ms"] = {n: statistics.median(v) for n, v in graph.items()}
            row["graph_rounds_ms"] = graph
            if "cutile_flipped" in graph:
                shared = _winner(report, "cutile")["SHARED_TMA"]
                row["shared_tma_ms"] = {shared: row["graph_ms"]["cutile"], 1 - shared: row["graph_ms"]["cutile_flipped"]}
            providers = [p for p in graph if p not in ("auto", "peer", "cutile_flipped")]
            best = min(providers, key=lambda p: row["graph_ms"][p])
            low, high = _quartiles(graph[best])
            spread = max((high - low) / row["graph_ms"][best], 0.01)
            row["auto_vs_best"] = row["graph_ms"]["auto"] / row["graph_ms"][best]
            row["best_provider"] = best
            row["noise"] = spread
            row["same_kernel_ratio"] = row["graph_ms"]["auto"] / row["graph_ms"][choice["provider"]]
            row["auto_within_noise"] = row["auto_vs_best"] <= 1 + spread
            if "cutile" in row["graph_ms"]:
                row["cutile_vs_triton"] = row["graph_ms"].get("triton", float("nan")) / row["graph_ms"]["cutile"]
                row["cutile_vs_peer"] = row["graph_ms"]["peer"] / row["graph_ms"]["cutile"]
            flops = 2 * shapes["M"] * shapes["N"] * shapes["K"] if example == "matmul" else None
            if flops:
                row["TFLOPs"] = {n: flops / (ms * 1e-3) / 1e12 for n, ms in row["graph_ms"].items()}
            failures += not row["auto_within_noise"]
            print(f"{cid}: auto chose {choice['provider']} {choice['params']} | graph ms " +
                  ", ".join(f"{n} {ms:.4f}" for n, ms in row["graph_ms"].items()) +
                  f" | cutile/triton {row.get('cutile_vs_triton', 0):.3f} cutile/peer {row.get('cutile_vs_peer', 0):.3f}"
                  f" | auto/best {row['auto_vs_best']:.3f} (noise {spread:.3f}) | tune {row['tune_s']} s", flush=True)
        except Exception as e:  # recorded, and the next case still runs
            import traceback
            traceback.print_exc()
            failures += 1
            row["error"] = f"{type(e).__name__}: {str(e)[-800:]}"
        results["cases"].append(row)
        if json_path:
            pathlib.Path(json_path).write_text(json.dumps(results, indent=1))
    if json_path:
        pathlib.Path(json_path).write_text(json.dumps(results, indent=1))
        print(f"wrote {json_path}")
    return 1 if failures else 0


def _winner(report, provider):
    """The provider's search winner: its fastest timed candidate of the head-to-head finalists."""
    return report["providers"][provider]["winner"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("phase", choices=["gen", "gen-inner", "check"])
    parser.add_argument("--tessel", default=ROOT / "build" / "bin" / "tessel")
    parser.add_argument("--out", help="gen: where the carry set goes")
    parser.add_argument("--manifest")
    parser.add_argument("--carry", help="check: the folder gen wrote")
    parser.add_argument("--json", help="check: write the results here")
    parser.add_argument("--workers", type=int, default=12, help="check: processes compiling candidates ahead")
    parser.add_argument("--rounds", type=int, default=9, help="check: timed rounds")
    args = parser.parse_args()
    if args.phase == "gen":
        gen(args.out, args.tessel)
    elif args.phase == "gen-inner":
        gen_inner(args.manifest)
    else:
        return check(args.carry, args.json, rounds=args.rounds, workers=args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
