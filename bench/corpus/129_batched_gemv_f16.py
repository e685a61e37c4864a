"""Batched matrix-vector product: y[b] = A[b] @ x[b], A f16 [B, M, K], x f16 [B, K], y f16 [B, M] (f32 accumulate). B64 M4096 K1024. Peer: torch.bmm."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def batched_gemv_f16(a: T.In[T.f16, ("B", "M", "K")], x: T.In[T.f16, ("B", "K")], y: T.Out[T.f16, ("B", "M")]):
    B, M, K = a.shape
    rows, ks = T.domain(0, M), T.domain(0, K)
    for b in T.parallel(T.domain(0, B)):
        y[b, rows] = T.cast(T.matvec(a[b, rows, ks], x[b, ks], acc_dtype=T.f32), T.f16)


KERNEL = batched_gemv_f16


def inputs(shape, rng):
    B, M, K = shape["B"], shape["M"], shape["K"]
    return {"a": rng.standard_normal((B, M, K)).astype(np.float16),
            "x": rng.standard_normal((B, K)).astype(np.float16)}


def reference(a, x):
    return {"y": np.einsum("bmk,bk->bm", a.astype(np.float64), x.astype(np.float64))}


def peer(a, x):
    import torch
    return {"y": torch.bmm(a, x.unsqueeze(-1)).squeeze(-1)}


def OPS(shape):
    B, M, K = shape["B"], shape["M"], shape["K"]
    return 2 * B * M * K, 2 * (B * M * K + B * K + B * M)


TEST_SHAPES = [dict(B=1, M=1, K=1), dict(B=3, M=5, K=127), dict(B=2, M=67, K=1031)]
BENCH_SHAPE = dict(B=64, M=4096, K=1024)
TOLERANCE = dict(rtol=2e-3, atol=2e-2)
PEER = "torch.bmm"
