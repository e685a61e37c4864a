"""Split-K GEMM (issue 16) against cuBLAS (torch.matmul) in one process on the GPU.

The case is the issue's bar: bf16 M = N = 512, K = 65536 (bench/gemm_kernels.py's splitk_gemm_bf16,
the example's body with bf16 inputs, f32 C; and splitk_gemm_bf16_aligned, chunks rounded up to 64). The Triton sources are generated ahead, on any machine
with the compiler, one module per binding (SPLITS is the kernel's constexpr, the rest its declared
parameters):
    python3 bench/splitk_gemm.py gen OUTDIR
and timed on the GPU machine, without the compiler:
    python3 bench/splitk_gemm.py time OUTDIR [--out lab/results] [--rounds 7]
Correctness first: every binding's C is compared with an f64 product of the same random (never zero)
inputs before anything is timed. Peers: torch.matmul in bf16 (bf16 C, cuBLAS) and with an f32 result
(torch.matmul(a, b, out_dtype=...) is absent: a.float() @ b.float() is the TF32/FP32 cuBLAS path,
reported for reference only). Times are CUDA-event medians after warm-up; tessel's include the call's
workspace allocation and ticket fill.
"""
import argparse
import datetime
import importlib.util
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
M, N, K = 512, 512, 65536
ODD = (383, 257, 10007)  # a second, odd case every binding must also get right (partial K blocks)
# (kernel, SPLITS, params): SPLITS is the kernel's constexpr, params its declared parameters (absent
# ones keep the compiled defaults: the first binding is the untuned call's). splitk_gemm_bf16 is the
# example's body (chunks of ceil(K / SPLITS)); tiles times splits near the 132 SMs.
BINDINGS = [
    ("splitk_gemm_bf16", 8, {}),
    ("splitk_gemm_bf16", 8, {"STAGES": 4}),
    ("splitk_gemm_bf16", 8, {"FLATTEN": 0}),
    ("splitk_gemm_bf16", 8, {"FLATTEN": 0, "STAGES": 4}),
    ("splitk_gemm_bf16", 8, {"TMA": 0}),
    # Deeper pipelines of the 128x128 tile: 5 stages fit with C staged (229376 B estimated), 6 with C
    # stored with pointers (196608 B).
    ("splitk_gemm_bf16", 8, {"STAGES": 5}),
    ("splitk_gemm_bf16", 8, {"STAGES": 6}),
    ("splitk_gemm_bf16", 16, {}),
    ("splitk_gemm_bf16", 16, {"FLATTEN": 0}),
    # Wide tiles (the dense GEMM's best, 128x256x64 at 8 warps): their f32 C tile would take 131072 B
    # staged for a TMA store, so the compiler spells it with pointers (Resources.h, storesStagedAt)
    # and they keep 4 stages (196640 B on sm_90; lab/experiments/splitk_session15).
    ("splitk_gemm_bf16", 16, {"TILE_2": 256, "STAGES": 4}),
    ("splitk_gemm_bf16", 16, {"TILE_2": 256, "STAGES": 3}),
    ("splitk_gemm_bf16", 16, {"TILE_2": 256, "STAGES": 4, "FLATTEN": 0}),
    ("splitk_gemm_bf16", 8, {"TILE_2": 256, "STAGES": 4}),
    ("splitk_gemm_bf16", 16, {"TILE_1": 256, "WARPS": 16, "STAGES": 4}),
    ("splitk_gemm_bf16", 8, {"TILE_1": 256, "WARPS": 16, "STAGES": 4}),
    ("splitk_gemm_bf16", 32, {"TILE_2": 256, "PERSIST": 2, "FLATTEN": 0}),
    ("splitk_gemm_bf16", 4, {}),
    ("splitk_gemm_bf16_aligned", 8, {}),
]


def name_of(binding):
    kernel, splits, params = binding
    return f"{kernel}_s{splits}" + "".join(f"_{k}{v}" for k, v in sorted(params.items()))


def gen(outdir):
    out = pathlib.Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    tessel = str(ROOT / "build" / "bin" / "tessel")
    env = {"PYTHONPATH": str(ROOT / "python") + ":" + str(ROOT / "bench")}
    for binding in BINDINGS:
        kernel, splits, params = binding
        kir = subprocess.run([sys.executable, "-m", "tessel", "emit", f"bench/gemm_kernels.py:{kernel}",
                              "--constexpr", f"SPLITS={splits}"], cwd=ROOT, env=env, check=True,
                             capture_output=True, text=True).stdout
        path = out / (name_of(binding) + ".kir.mlir")
        path.write_text(kir)
        subprocess.run([tessel, "compile", str(path), "--target=triton", "--emit=source",
                        *[f"--param={k}={v}" for k, v in params.items()], "-o",
                        str(out / (name_of(binding) + ".py"))], check=True)
        path.unlink()
    print(f"generated {len(BINDINGS)} modules in {out}")


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_all(outdir, results, tag, before=None, rounds=0):
    import torch
    sys.path.insert(0, str(ROOT / "bench"))
    from run_bench import host_us, kernel_ms, steady, timed, write_results
    torch.manual_seed(0)

    def nonzero(*shape):
        x = torch.rand(*shape, device="cuda") * 0.75 + 0.25
        return (x * torch.where(torch.rand(*shape, device="cuda") < 0.5, -1.0, 1.0)).to(torch.bfloat16)

    def check(call, m, n, k):
        """Max error relative to the f64 product's largest magnitude, C poisoned first (NaN)."""
        a, b = nonzero(m, k), nonzero(k, n)
        want = a.double() @ b.double()
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
        call(a, b, c)
        torch.cuda.synchronize()
        return ((c.double() - want).abs().max() / want.abs().max()).item()

    a, b = nonzero(M, K), nonzero(K, N)
    want = (a.double() @ b.double())
    scale = want.abs().max().item()
    flop = 2.0 * M * N * K
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "case": {"M": M, "N": N, "K": K, "dtype": "bf16", "C": "f32"},
           "odd_case": dict(zip("MNK", ODD)),
           "timing": "ms: CUDA events around one call after a synchronize (launch path included), median "
                     "of 50; steady_ms: 20 calls back to back between two events, per call, median of 10; "
                     "kernel_ms: the device time of the kernels one call launches (torch profiler); host_us: the "
                     "launch path's host time per call (200 calls, no synchronization)",
           "bindings": []}
    ref = torch.matmul(a, b)
    doc["cublas_bf16_max_rel_err"] = ((ref.double() - want).abs().max() / scale).item()
    doc["cublas_bf16_ms"] = timed(lambda: torch.matmul(a, b), reps=50, warmup=5)
    doc["cublas_bf16_steady_ms"] = steady(lambda: torch.matmul(a, b))
    doc["cublas_bf16_kernel_ms"] = kernel_ms(lambda: torch.matmul(a, b))
    doc["cublas_bf16_host_us"] = host_us(lambda: torch.matmul(a, b))
    af, bf = a.float(), b.float()
    doc["cublas_f32_ms"] = timed(lambda: torch.matmul(af, bf), reps=20, warmup=3)
    best = None
    # Modules generated by an earlier compiler (--before DIR: files named as bench/splitk_gemm.py of
    # session 10 named them, KERNEL_sSPLITS_...), timed beside this compiler's in the same process.
    earlier = sorted(pathlib.Path(before).glob("*.py")) if before else []
    runs = [(b, pathlib.Path(outdir) / (name_of(b) + ".py")) for b in BINDINGS]
    for p in earlier:
        kernel, splits = re.match(r"(.+)_s(\d+)_", p.stem).groups()
        runs.append(((kernel, int(splits), {"earlier": p.stem}), p))
    for binding, path in runs:
        entry = {"kernel": binding[0], "SPLITS": binding[1], "params": binding[2]}
        try:
            module = load(path)
            call = getattr(module, binding[0])
            entry["binding"] = {k: v[1] for k, v in getattr(module, binding[0] + "_PARAMS").items()}
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
            call(a, b, c)
            torch.cuda.synchronize()
            err = ((c.double() - want).abs().max() / scale).item()
            entry["max_rel_err"] = err
            entry["odd_max_rel_err"] = check(call, *ODD)
            entry["correct"] = err < 1e-4 and entry["odd_max_rel_err"] < 1e-4  # f32 sums of exact bf16 products
            if entry["correct"]:
                c.fill_(float("nan"))
                call(a, b, c)  # again: the tickets restart at 0 every call
                torch.cuda.synchronize()
                entry["correct_again"] = ((c.double() - want).abs().max() / scale).item() < 1e-4
                entry["ms"] = timed(lambda: call(a, b, c), reps=50, warmup=5)
                entry["steady_ms"] = steady(lambda: call(a, b, c))
                entry["kernel_ms"] = kernel_ms(lambda: call(a, b, c))
                entry["host_us"] = host_us(lambda: call(a, b, c))
                entry["TFLOPs"] = flop / entry["ms"] / 1e9
                entry["vs_cublas_bf16"] = doc["cublas_bf16_ms"] / entry["ms"]
                entry["steady_vs_cublas_bf16"] = doc["cublas_bf16_steady_ms"] / entry["steady_ms"]
                if entry["correct_again"] and (best is None or entry["ms"] < best["ms"]):
                    best = entry
        except Exception as e:  # a binding that fails to compile or launch is a result, not a crash
            entry["error"] = f"{type(e).__name__}: {e}"[:400]
        doc["bindings"].append(entry)
        print(json.dumps(entry), flush=True)
        write_results(doc, results, tag, quiet=True)
    doc["cublas_bf16_TFLOPs"] = flop / doc["cublas_bf16_ms"] / 1e9
    if best:
        doc["best"] = best
        doc["best_vs_cublas_bf16"] = best["vs_cublas_bf16"]
    doc["defaults"] = doc["bindings"][0]
    if rounds:
        doc["rounds"] = interleaved(doc["bindings"][0], outdir, a, b, rounds)
    print(json.dumps({k: v for k, v in doc.items() if k != "bindings"}, indent=1))
    write_results(doc, results, tag)
    for e in doc["bindings"]:
        print(f"{name_of((e['kernel'], e['SPLITS'], e['params'])):60s} "
              + (f"{e['ms']:.4f} ms {e['steady_ms']:.4f} steady {e['kernel_ms']:.4f} kernel {e['host_us']:.0f} us host "
                 f"{e['vs_cublas_bf16']:.2f}x/{e['steady_vs_cublas_bf16']:.2f}x" if "ms" in e
                 else e.get("error", f"wrong {e.get('max_rel_err')} {e.get('odd_max_rel_err')}")))
    print(f"cublas {doc['cublas_bf16_ms']:.4f} ms {doc['cublas_bf16_steady_ms']:.4f} steady "
          f"{doc['cublas_bf16_kernel_ms']:.4f} kernel {doc['cublas_bf16_host_us']:.0f} us host")


def interleaved(entry, outdir, a, b, rounds):
    """The untuned binding and cuBLAS timed in alternation, `rounds` times (cuBLAS first in even rounds,
    second in odd ones): per round each one's single call, steady call and device time, and the medians
    of the per-round ratios (single calls of either vary by several microseconds run to run)."""
    import statistics
    import torch
    from run_bench import kernel_ms, steady, timed
    call = getattr(load(pathlib.Path(outdir) / (name_of(BINDINGS[0]) + ".py")), BINDINGS[0][0])
    c = torch.empty(M, N, device="cuda", dtype=torch.float32)
    fns = {"tessel": lambda: call(a, b, c), "cublas": lambda: torch.matmul(a, b)}
    per = []
    for r in range(rounds):
        row = {}
        for who in (("cublas", "tessel") if r % 2 == 0 else ("tessel", "cublas")):
            f = fns[who]
            row[who] = {"ms": timed(f, reps=50, warmup=5), "steady_ms": steady(f), "kernel_ms": kernel_ms(f)}
        per.append(row)
    ratio = {k: statistics.median(r["cublas"][k] / r["tessel"][k] for r in per) for k in ("ms", "steady_ms", "kernel_ms")}
    print("interleaved rounds, median of cuBLAS / tessel per round:", json.dumps(ratio), flush=True)
    return {"binding": entry.get("binding"), "per_round": per, "median_ratio_cublas_over_tessel": ratio}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["gen", "time"])
    p.add_argument("dir")
    p.add_argument("--out", default=str(ROOT / "lab" / "results"))
    p.add_argument("--tag", default="splitk")
    p.add_argument("--before", default=None, help="a folder of modules an earlier compiler generated")
    p.add_argument("--rounds", type=int, default=0, help="then time the defaults and cuBLAS in alternation")
    args = p.parse_args()
    if args.what == "gen":
        gen(args.dir)
    else:
        time_all(args.dir, args.out, args.tag, args.before, args.rounds)


if __name__ == "__main__":
    main()
