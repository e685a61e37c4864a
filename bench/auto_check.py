"""`target="auto"` against the Triton and cuTile providers on a CUDA machine (issue 17).

For bf16 GEMM 4096^3 and the f32 row kernels (softmax, layernorm, rmsnorm) at 16384x8192, in one process:
`kernel.tune(..., target="auto")` (the tuner's own search over both providers, in a narrowed domain), then
correctness of the three paths against torch (the auto call, the Triton winner, the cuTile winner), then
their device time, measured alternately in rounds (CUDA-graph replay, the tuner's timer; and
triton.testing.do_bench, which includes each call's host path).

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
# bindings that won on this H200 before (bench/results/2026-12-01-h200-cutile-check.json): Triton's tuned
# binding, and cuTile's best two (each cuTile binding is one tileiras compile on the GPU machine), so the
# run fits the device time: this measures the choice between providers, not the parameter search.
CASES = [
    ("matmul_4096", "matmul", {"M": 4096, "N": 4096, "K": 4096}, {},
     {"triton": {"FLATTEN": [1], "GROUP_0": [8], "PERSIST": [1], "STAGES": [3], "TILE_0": [128], "TILE_1": [256],
                 "TILE_K": [64], "TMA": [1], "WARPS": [8]},
      "cutile": {"TILE_0": [128], "TILE_1": [128], "TILE_K": [64], "PERSIST": [1, 2], "GROUP_0": [8],
                 "OCCUPANCY": [0], "NUM_CTAS": [1]}}),
    ("softmax_16384x8192", "softmax", {"M": 16384, "N": 8192}, {},
     {"triton": {"BLOCK": [8192], "STAGES": [4], "WARPS": [8]},
      "cutile": {"BLOCK": [4096], "OCCUPANCY": [2, 4], "NUM_CTAS": [1]}}),
    ("layernorm_16384x8192", "layernorm", {"M": 16384, "N": 8192}, {"eps": 1e-5},
     {"triton": {"BLOCK": [8192], "STAGES": [2], "WARPS": [16]},
      "cutile": {"BLOCK": [4096], "OCCUPANCY": [2, 4], "NUM_CTAS": [1]}}),
    ("rmsnorm_16384x8192", "rmsnorm", {"M": 16384, "N": 8192}, {"eps": 1e-5},
     {"triton": {"BLOCK": [8192], "STAGES": [4], "WARPS": [8]},
      "cutile": {"BLOCK": [8192], "OCCUPANCY": [2, 4], "NUM_CTAS": [1]}}),
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
        for provider in _tune.PROVIDERS:
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
    torch.manual_seed(0)
    if example == "matmul":
        a = torch.randn(shapes["M"], shapes["K"], device="cuda", dtype=torch.bfloat16)
        b = torch.randn(shapes["K"], shapes["N"], device="cuda", dtype=torch.bfloat16)
        c = torch.empty(shapes["M"], shapes["N"], device="cuda", dtype=torch.bfloat16)
        return [a, b, c], (lambda: (a.float() @ b.float())), 2e-2
    x = torch.randn(shapes["M"], shapes["N"], device="cuda")
    w, bias = torch.randn(shapes["N"], device="cuda"), torch.randn(shapes["N"], device="cuda")
    y = torch.empty_like(x)
    n = (shapes["N"],)
    if example == "softmax":
        return [x, y], (lambda: torch.softmax(x, 1)), 1e-4
    if example == "layernorm":
        return [x, w, bias, y], (lambda: torch.nn.functional.layer_norm(x, n, w, bias, 1e-5)), 1e-4
    return [x, w, y], (lambda: torch.nn.functional.rms_norm(x, n, w, 1e-5)), 1e-4


def _quartiles(values):
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def check(carry, json_path, rounds=15):
    carry = pathlib.Path(carry).resolve()
    if carry != STAGE:
        if STAGE.exists():
            shutil.rmtree(STAGE)
        shutil.copytree(carry, STAGE)
    sys.path[:0] = [str(STAGE / "python"), str(STAGE / "examples")]
    os.environ["TESSEL_CACHE"] = str(STAGE / "cache")
    manifest = json.loads((STAGE / "manifest.json").read_text())
    import torch
    from triton.testing import do_bench
    from tessel import _cutile, _kernel, _tune
    _kernel._VERSION = manifest["version"]  # the compiler that made the staged sources (not on this machine)
    results = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "compiler": manifest["version"], "cutile_unavailable": _cutile.unavailable(),
               "method": "kernel.tune(target='auto') in each case's narrowed domain, then the auto call, the "
                         "Triton winner and the cuTile winner checked against torch, then one discarded warm-up "
                         f"round and {rounds} rounds timed alternately: CUDA-graph replay of 10 launches (median of "
                         "20, the tuner's timer) and triton.testing.do_bench (median, host path included). noise: "
                         "the interquartile range of the best provider's rounds over their median (at least 1%); "
                         "same_kernel_ratio: the auto call over the provider it chose, the same compiled kernel",
               "cases": []}
    failures = 0
    for cid, example, shapes, scalars, domain in CASES:
        row = {"id": cid, "shapes": shapes}
        print(f"{cid}: tuning target='auto'", flush=True)
        try:
            kernel = _auto_kernel(example)
            kir = next(c["kir"] for c in manifest["cases"] if c["id"] == cid)
            if kernel.kir({}) != kir:  # another Python traced other locations: use the text the sources were made of
                kernel._cache[kernel._key({})] = kir
                row["kir_from_gen"] = True
            args, want_fn, tol = _inputs(torch, example, shapes)
            started = time.monotonic()
            choice = kernel.tune(*args, domain=domain, budget_s=90, retune=True, verbose=False, **scalars)
            report = kernel.last_tuning
            row.update(choice=choice, tune_s=round(time.monotonic() - started, 1),
                       head_to_head_ms=report.get("head_to_head_ms"),
                       searched={p: {"timed": r["timed"], "winner_ms": r.get("winner_ms"),
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
            graph = {name: [] for name in paths}
            bench = {name: [] for name in paths}
            for fn in paths.values():  # warm-up: clocks and power settle before the rounds that count
                _tune._median_ms(torch, fn, 20)
            for _ in range(rounds):
                for name, fn in paths.items():
                    graph[name].append(_tune._median_ms(torch, fn, 20))
                    bench[name].append(do_bench(fn, warmup=5, rep=40, return_mode="median"))
            row["graph_ms"] = {n: statistics.median(v) for n, v in graph.items()}
            row["graph_rounds_ms"] = graph
            row["do_bench_ms"] = {n: statistics.median(v) for n, v in bench.items()}
            row["do_bench_rounds_ms"] = bench
            providers = [p for p in graph if p != "auto"]
            best = min(providers, key=lambda p: row["graph_ms"][p])
            low, high = _quartiles(graph[best])
            spread = max((high - low) / row["graph_ms"][best], 0.01)
            row["auto_vs_best"] = row["graph_ms"]["auto"] / row["graph_ms"][best]
            row["best_provider"] = best
            row["noise"] = spread
            row["same_kernel_ratio"] = row["graph_ms"]["auto"] / row["graph_ms"][choice["provider"]]
            row["auto_within_noise"] = row["auto_vs_best"] <= 1 + spread
            failures += not row["auto_within_noise"]
            print(f"{cid}: auto chose {choice['provider']} {choice['params']} | graph ms " +
                  ", ".join(f"{n} {ms:.4f}" for n, ms in row["graph_ms"].items()) +
                  f" | do_bench ms " + ", ".join(f"{n} {ms:.4f}" for n, ms in row["do_bench_ms"].items()) +
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
    args = parser.parse_args()
    if args.phase == "gen":
        gen(args.out, args.tessel)
    elif args.phase == "gen-inner":
        gen_inner(args.manifest)
    else:
        return check(args.carry, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
