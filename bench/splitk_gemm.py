"""Split-K GEMM (issue 16) against cuBLAS (torch.matmul) in one process on the GPU.

The case is the issue's bar: bf16 M = N = 512, K = 65536 (bench/gemm_kernels.py's splitk_gemm_bf16,
the example's body with bf16 inputs, f32 C; and splitk_gemm_bf16_aligned, chunks rounded up to 64). The Triton sources are generated ahead, on any machine
with the compiler, one module per binding (SPLITS is the kernel's constexpr, the rest its declared
parameters):
    python3 bench/splitk_gemm.py gen OUTDIR
and timed on the GPU machine, without the compiler:
    python3 bench/splitk_gemm.py time OUTDIR [--out bench/results]
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
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
M, N, K = 512, 512, 65536
# (kernel, SPLITS, TILE_1, TILE_2, TILE_K, WARPS, STAGES): tiles times splits near the 132 SMs' waves.
# splitk_gemm_bf16 chunks K as the example does; _aligned rounds chunks up to 64 elements.
BINDINGS = [
    ("splitk_gemm_bf16", 8, 128, 128, 64, 8, 3),
    ("splitk_gemm_bf16", 8, 128, 128, 64, 8, 4),
    ("splitk_gemm_bf16", 16, 128, 128, 64, 8, 3),
    ("splitk_gemm_bf16_aligned", 8, 128, 128, 64, 8, 3),
    ("splitk_gemm_bf16_aligned", 8, 128, 128, 64, 8, 4),
    ("splitk_gemm_bf16_aligned", 16, 128, 128, 64, 8, 3),
    ("splitk_gemm_bf16_aligned", 4, 128, 64, 64, 4, 4),
    ("splitk_gemm_bf16_aligned", 8, 128, 64, 64, 4, 4),
    ("splitk_gemm_bf16_aligned", 16, 64, 128, 64, 4, 4),
]


def name_of(binding):
    return "{}_s{}_{}x{}x{}_w{}_st{}".format(*binding)


def gen(outdir):
    out = pathlib.Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    tessel = str(ROOT / "build" / "bin" / "tessel")
    env = {"PYTHONPATH": str(ROOT / "python") + ":" + str(ROOT / "bench")}
    for binding in BINDINGS:
        kernel, splits, t1, t2, tk, warps, stages = binding
        kir = subprocess.run([sys.executable, "-m", "tessel", "emit", f"bench/gemm_kernels.py:{kernel}",
                              "--constexpr", f"SPLITS={splits}"], cwd=ROOT, env=env, check=True,
                             capture_output=True, text=True).stdout
        path = out / (name_of(binding) + ".kir.mlir")
        path.write_text(kir)
        params = [f"--param=TILE_1={t1}", f"--param=TILE_2={t2}", f"--param=TILE_K={tk}", f"--param=WARPS={warps}",
                  f"--param=STAGES={stages}"]
        subprocess.run([tessel, "compile", str(path), "--target=triton", "--emit=source", *params, "-o",
                        str(out / (name_of(binding) + ".py"))], check=True)
        path.unlink()
    print(f"generated {len(BINDINGS)} modules in {out}")


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_all(outdir, results):
    import torch
    sys.path.insert(0, str(ROOT / "bench"))
    from run_bench import timed, write_results
    torch.manual_seed(0)

    def nonzero(*shape):
        x = torch.rand(*shape, device="cuda") * 0.75 + 0.25
        return (x * torch.where(torch.rand(*shape, device="cuda") < 0.5, -1.0, 1.0)).to(torch.bfloat16)

    a, b = nonzero(M, K), nonzero(K, N)
    want = (a.double() @ b.double())
    scale = want.abs().max().item()
    flop = 2.0 * M * N * K
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "case": {"M": M, "N": N, "K": K, "dtype": "bf16", "C": "f32"},
           "bindings": []}
    ref = torch.matmul(a, b)
    doc["cublas_bf16_max_rel_err"] = ((ref.double() - want).abs().max() / scale).item()
    doc["cublas_bf16_ms"] = timed(lambda: torch.matmul(a, b), reps=50, warmup=5)
    af, bf = a.float(), b.float()
    doc["cublas_f32_ms"] = timed(lambda: torch.matmul(af, bf), reps=20, warmup=3)
    best = None
    for binding in BINDINGS:
        entry = {"kernel": binding[0],
                 "binding": dict(zip(["SPLITS", "TILE_1", "TILE_2", "TILE_K", "WARPS", "STAGES"], binding[1:]))}
        try:
            module = load(pathlib.Path(outdir) / (name_of(binding) + ".py"))
            c = torch.empty(M, N, device="cuda", dtype=torch.float32)
            call = getattr(module, binding[0])
            call(a, b, c)
            torch.cuda.synchronize()
            err = ((c.double() - want).abs().max() / scale).item()
            entry["max_rel_err"] = err
            entry["correct"] = err < 1e-4  # f32 accumulation of exact bf16 products
            if entry["correct"]:
                c.zero_()
                call(a, b, c)  # again: the tickets restart at 0 every call
                torch.cuda.synchronize()
                entry["correct_again"] = ((c.double() - want).abs().max() / scale).item() < 1e-4
                entry["ms"] = timed(lambda: call(a, b, c), reps=50, warmup=5)
                entry["TFLOPs"] = flop / entry["ms"] / 1e9
                entry["vs_cublas_bf16"] = doc["cublas_bf16_ms"] / entry["ms"]
                if entry["correct_again"] and (best is None or entry["ms"] < best["ms"]):
                    best = entry
        except Exception as e:  # a binding that fails to compile or launch is a result, not a crash
            entry["error"] = f"{type(e).__name__}: {e}"[:400]
        doc["bindings"].append(entry)
        print(json.dumps(entry), flush=True)
    doc["cublas_bf16_TFLOPs"] = flop / doc["cublas_bf16_ms"] / 1e9
    if best:
        doc["best"] = best
        doc["best_vs_cublas_bf16"] = best["vs_cublas_bf16"]
    print(json.dumps({k: v for k, v in doc.items() if k != "bindings"}, indent=1))
    write_results(doc, results, "splitk")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["gen", "time"])
    p.add_argument("dir")
    p.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = p.parse_args()
    if args.what == "gen":
        gen(args.dir)
    else:
        time_all(args.dir, args.out)


if __name__ == "__main__":
    main()
