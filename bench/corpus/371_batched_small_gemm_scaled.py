"""Batched small matrix multiply with a per-batch scale (many tiny independent GEMMs: block-diagonal
layers, per-head or per-expert 32x32 projections): out[b] = s[b] * (A[b] @ B[b]), A f16 [NB, M, K], B f16
[NB, K, N], s f32 [NB], accumulated in f32 and rounded once to f16; out f16 [NB, M, N]. NB8192 of
M32 K32 N32. Peer: torch.compile((torch.bmm(A, B).float() * s[:, None, None]).half())."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def batched_gemm_scaled(A: T.In[T.f16, ("NB", "M", "K")], B: T.In[T.f16, ("NB", "K", "N")],
                        s: T.In[T.f32, ("NB",)], out: T.Out[T.f16, ("NB", "M", "N")]):
    NB, M, K = A.shape
    N = B.shape[2]
    bs, rows, ks, cols = T.domain(0, NB), T.domain(0, M), T.domain(0, K), T.domain(0, N)
    acc = T.matmul(A[bs, rows, ks], B[bs, ks, cols], acc_dtype=T.f32)          # [NB, M, N]
    out[bs, rows, cols] = T.cast(acc * s[bs], T.f16)


KERNEL = batched_gemm_scaled


def inputs(shape, rng):
    NB, M, K, N = shape["NB"], shape["M"], shape["K"], shape["N"]
    return dict(A=rng.standard_normal((NB, M, K)).astype(np.float16),
                B=rng.standard_normal((NB, K, N)).astype(np.float16),
                s=rng.uniform(-2.0, 2.0, NB).astype(np.float32))


def reference(A, B, s):
    return dict(out=np.matmul(A.astype(np.float64), B.astype(np.float64)) * s.astype(np.float64)[:, None, None])


def peer(A, B, s):
    import torch
    if A.is_cuda:
        return dict(out=(torch.bmm(A, B).float() * s[:, None, None]).to(A.dtype))
    return dict(out=(torch.bmm(A.float(), B.float()) * s[:, None, None]).to(A.dtype))


def OPS(shape):
    NB, M, K, N = shape["NB"], shape["M"], shape["K"], shape["N"]
    return 2 * NB * M * N * K + NB * M * N, 2 * NB * (M * K + K * N + M * N) + 4 * NB


TEST_SHAPES = [dict(NB=0, M=3, K=5, N=7), dict(NB=1, M=1, K=1, N=1), dict(NB=3, M=5, K=0, N=7),
               dict(NB=7, M=17, K=33, N=13), dict(NB=5, M=33, K=31, N=37)]
BENCH_SHAPE = dict(NB=8192, M=32, K=32, N=32)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile"
