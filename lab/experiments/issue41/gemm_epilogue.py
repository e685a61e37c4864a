"""GEMM epilogues on the H200 (issue 41): where does a fused epilogue lose against torch.compile?

A [M,K] f16 @ B [K,N] f16 + bias [N] f32, then an epilogue, stored f16, at 4096 x 11008 x 4096, each at the
declared defaults and a few tile bindings; checked against torch first, medians of do_bench.
    TESSEL_BIN=... PYTHONPATH=python python3 lab/experiments/issue41/gemm_epilogue.py
"""
import math
import sys


def kernels():
    import tessel
    import tessel.language as T

    def make(epilogue, name):
        @tessel.kernel(name=name)
        def k(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], bias: T.In[T.f32, ("N",)],
              c: T.Out[T.f16, ("M", "N")]):
            M, K = a.shape
            N = b.shape[1]
            rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
            acc = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32) + bias[cols]
            c[rows, cols] = T.cast(epilogue(acc), T.f16)
        return k

    return {
        "bias": make(lambda x: x, "ep_bias"),
        "relu": make(lambda x: T.relu(x), "ep_relu"),
        "gelu_tanh": make(lambda x: T.gelu(x, approximate="tanh"), "ep_gelu_tanh"),
        "tanh": make(lambda x: T.tanh(x), "ep_tanh"),
        "cubic": make(lambda x: x + 0.044715 * x * x * x, "ep_cubic"),
    }


def main(M=4096, N=11008, K=4096):
    import torch
    import torch.nn.functional as F
    from triton.testing import do_bench
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = (torch.randn(K, N, device="cuda") / math.sqrt(K)).to(torch.float16)
    bias = torch.randn(N, device="cuda") * 0.5
    ref_acc = (a.float() @ b.float()) + bias
    refs = {"bias": ref_acc, "relu": F.relu(ref_acc), "gelu_tanh": F.gelu(ref_acc, approximate="tanh"),
            "tanh": torch.tanh(ref_acc), "cubic": ref_acc + 0.044715 * ref_acc ** 3}
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    flops = 2.0 * M * N * K
    peer = torch.compile(lambda a, b, bias: F.gelu(a @ b + bias, approximate="tanh").to(torch.float16))
    peer(a, b, bias)
    ms = do_bench(lambda: peer(a, b, bias), return_mode="median")
    print(f"torch.compile gelu_tanh: {ms:.3f} ms {flops / ms / 1e9:.0f} TFLOP/s", flush=True)
    ms = do_bench(lambda: a @ b, return_mode="median")
    print(f"torch a @ b (cuBLAS):    {ms:.3f} ms {flops / ms / 1e9:.0f} TFLOP/s", flush=True)
    bindings = [None, {"TILE_1": 128}, {"TILE_0": 128, "TILE_1": 128, "WARPS": 4}, {"TILE_1": 128, "STAGES": 4},
                {"TILE_0": 64, "TILE_1": 256}]
    for name, k in kernels().items():
        for params in bindings:
            try:
                c.fill_(float("nan"))
                k.launch(a, b, bias, c, params=params)
                torch.cuda.synchronize()
                err = (c.float() - refs[name]).abs().max().item()
                ok = err < 5e-2
                ms = do_bench(lambda: k.launch(a, b, bias, c, params=params), return_mode="median") if ok else float("nan")
                print(f"{name:10s} {str(params):45s} {ms:8.3f} ms {flops / ms / 1e9:6.0f} TFLOP/s err {err:.3g}", flush=True)
            except Exception as e:
                print(f"{name:10s} {str(params):45s} error {type(e).__name__}: {str(e)[:200]}", flush=True)


if __name__ == "__main__":
    main()
