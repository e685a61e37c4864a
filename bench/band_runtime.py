"""Sliding-window attention with a runtime width vs the suite's Constexpr width, on a CUDA GPU.

Both kernels are bench/attention_kernels.py's (runtime_window_attention: w a runtime i32;
window_attention: W a Constexpr), at B4 H32 S4096 D128 f16 W=256, each at its call defaults. Each is
checked first against torch SDPA (math backend) with the explicit band mask t <= s, s - t < W, then
timed by the median of CUDA-event timings. TFLOP/s count 4*B*H*D per visible (query, key) pair.
Usage on the GPU machine (from the repository root, tessel built):
    TESSEL_BIN=$PWD/build/bin/tessel python3 bench/band_runtime.py
"""
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def visible_pairs(S, W):
    return sum(min(s + 1, W) for s in range(S))


def median_ms(fn):
    from triton.testing import do_bench
    return do_bench(fn, warmup=25, rep=200, return_mode="median")


def main(B=4, H=32, S=4096, D=128, W=256):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "bench")]
    import attention_kernels as AK
    import tessel.language as T

    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
    scale = 1.0 / math.sqrt(D)
    i = torch.arange(S, device="cuda")
    mask = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < W)
    with sdpa_kernel([SDPBackend.MATH]):
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    flops = 4.0 * B * H * D * visible_pairs(S, W)

    runtime = AK.runtime_window_attention(T.f16, name="band_runtime_w")
    constexpr = AK.window_attention(T.f16, name="band_constexpr_w")
    o = torch.empty_like(q)
    calls = {"runtime W (w: T.i32)": lambda: runtime(q, k, v, o, scale=scale, w=W),
             "constexpr W (suite)": lambda: constexpr(q, k, v, o, scale=scale, W=W)}
    calls["SDPA (explicit mask)"] = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    block_mask = create_block_mask(lambda b, h, qi, ki: (ki <= qi) & (qi - ki < W), None, None, S, S, device="cuda")
    flex = torch.compile(flex_attention)
    calls["FlexAttention (block mask)"] = lambda: flex(q, k, v, block_mask=block_mask, scale=scale)
    print(f"B{B} H{H} S{S} D{D} f16 W={W}: {visible_pairs(S, W)} visible pairs per head")
    for name, fn in calls.items():
        o.fill_(float("nan"))
        out = fn()
        torch.cuda.synchronize()
        got = out if isinstance(out, torch.Tensor) else o
        err = (got.double() - ref.double()).abs().max().item()
        if not err <= 2e-2:
            print(f"{name:24s} WRONG: max abs error {err:.3g}")
            continue
        ms = median_ms(fn)
        print(f"{name:24s} {ms:8.3f} ms  {flops / ms / 1e9:7.1f} TFLOP/s  (max abs err {err:.2g})")


if __name__ == "__main__":
    main()
