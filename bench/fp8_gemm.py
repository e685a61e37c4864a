"""FP8 GEMM (issue 44) against torch._scaled_mm (cuBLASLt) in one process on the GPU.

The kernel is what a user writes from docs/language.md ("FP8 matrix products"): e4m3 activations
A [M, K] and weights [N, K] (the nn.Linear layout) or [K, N], each quantized per row with an f32 scale,
an f32 accumulator and the scales applied in the epilogue, bf16 out:
    C = bf16((A @ W^T) * sa[rows] * sw[cols])
Peers: torch._scaled_mm with the same row-wise scales (use_fast_accum False, cuBLAS's promoted sums,
and True), and the bf16 GEMM of the dequantized values (cuBLAS bf16) for scale. Correctness first:
every binding's C is compared with an f64 product of the same FP8 values before it is timed. Times are
medians of triton.testing.do_bench; TFLOP/s count 2 M N K.

    python3 bench/fp8_gemm.py [--out FILE] [--shapes 4096x4096x4096,...] [--bindings]
(TESSEL_BIN names the compiler where the repository has no build.)
"""
import argparse
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def fp8_linear(a: T.In[T.f8e4m3, ("M", "K")], w: T.In[T.f8e4m3, ("N", "K")], sa: T.In[T.f32, ("M",)],
               sw: T.In[T.f32, ("N",)], c: T.Out[T.bf16, ("M", "N")]):
    rows, cols = T.domain(0, a.shape[0]), T.domain(0, w.shape[0])
    acc = T.matmul(a[rows, :], w[cols, :], transpose_rhs=True, acc_dtype=T.f32)
    c[rows, cols] = T.cast(acc * sa[rows] * sw[cols], T.bf16)


@tessel.kernel
def fp8_gemm_kn(a: T.In[T.f8e4m3, ("M", "K")], b: T.In[T.f8e4m3, ("K", "N")], sa: T.In[T.f32, ("M",)],
                sb: T.In[T.f32, ("N",)], c: T.Out[T.bf16, ("M", "N")]):
    rows, cols = T.domain(0, a.shape[0]), T.domain(0, b.shape[1])
    acc = T.matmul(a[rows, :], b[:, cols], acc_dtype=T.f32)
    c[rows, cols] = T.cast(acc * sa[rows] * sb[cols], T.bf16)


SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 16384), (4097, 4095, 1000)]
# Bindings timed beside the call defaults (tile rows, cols, K, stages, warps).
BINDINGS = [dict(TILE_0=128, TILE_1=256, TILE_K=128, STAGES=3, WARPS=8),
            dict(TILE_0=128, TILE_1=128, TILE_K=128, STAGES=4, WARPS=8),
            dict(TILE_0=128, TILE_1=256, TILE_K=64, STAGES=4, WARPS=8),
            dict(TILE_0=256, TILE_1=128, TILE_K=128, STAGES=3, WARPS=8)]


def quantize_rows(x):
    import torch
    scale = x.abs().amax(dim=1).clamp(min=1e-6) / 448.0
    return (x / scale[:, None]).to(torch.float8_e4m3fn), scale.float()


def main():
    import torch
    from triton.testing import do_bench
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "fp8_gemm.json"))
    ap.add_argument("--shapes", default="")
    ap.add_argument("--bindings", action="store_true", help="also time BINDINGS")
    args = ap.parse_args()
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",") if s] or SHAPES
    records = []
    for (m, n, k) in shapes:
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        a8, sa = quantize_rows(torch.randn(m, k, device="cuda", generator=g))
        w8, sw = quantize_rows(torch.randn(n, k, device="cuda", generator=g))
        b8 = w8.t().contiguous()  # [K, N] row-major, for the second spelling
        want = (a8.double() @ w8.double().t()) * sa.double()[:, None] * sw.double()[None, :]
        flops = 2.0 * m * n * k
        rec = {"M": m, "N": n, "K": k}

        def check(c, what):
            err = ((c.double() - want).abs() / (want.abs() + want.abs().mean())).max().item()
            assert err < 2e-2, f"{what} at {m}x{n}x{k}: max relative error {err}"
            return err

        def tflops(ms):
            return round(flops / ms / 1e9, 1)

        # Peers (scales [M, 1] and [1, N]: cuBLASLt's row-wise scaling).
        for fast in (False, True):
            f = lambda fast=fast: torch._scaled_mm(a8, w8.t(), scale_a=sa[:, None], scale_b=sw[None, :],  # noqa: E731
                                                   out_dtype=torch.bfloat16, use_fast_accum=fast)
            try:
                rec[f"scaled_mm_fast{int(fast)}_err"] = check(f(), "torch._scaled_mm")
                ms = do_bench(f, warmup=25, rep=200, return_mode="median")
                rec[f"scaled_mm_fast{int(fast)}_ms"], rec[f"scaled_mm_fast{int(fast)}_tflops"] = ms, tflops(ms)
            except Exception as e:  # noqa: BLE001
                rec[f"scaled_mm_fast{int(fast)}_error"] = f"{type(e).__name__}: {str(e)[:200]}"
        ab, wb = (a8.to(torch.bfloat16)), (w8.to(torch.bfloat16))
        ms = do_bench(lambda: ab @ wb.t(), warmup=25, rep=200, return_mode="median")
        rec["bf16_cublas_ms"], rec["bf16_cublas_tflops"] = ms, tflops(ms)
        for kernel, second in ((fp8_linear, w8), (fp8_gemm_kn, b8)):
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            runs = [("defaults", None)] + ([(json.dumps(b), b) for b in BINDINGS] if args.bindings else [])
            for label, binding in runs:
                key = f"{kernel.name}[{label}]"
                try:
                    if binding is None:
                        call = lambda: kernel(a8, second, sa, sw, c)  # noqa: E731
                        rec[f"{kernel.name}_call_defaults"] = kernel.call_defaults(a8, second, sa, sw, c)
                    else:
                        launch = kernel._launcher({}, {**kernel.call_defaults(a8, second, sa, sw, c), **binding})
                        call = lambda launch=launch: launch(a8, second, sa, sw, c)  # noqa: E731
                    c.fill_(float("nan"))
                    call()
                    torch.cuda.synchronize()
                    rec[key + "_err"] = check(c, key)
                    ms = do_bench(call, warmup=25, rep=200, return_mode="median")
                    rec[key + "_ms"], rec[key + "_tflops"] = ms, tflops(ms)
                except Exception as e:  # noqa: BLE001
                    rec[key + "_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        print(json.dumps(rec), flush=True)
        records.append(rec)
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "records": records}
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
