"""Batch of small GEMMs with per-batch transposed B: C[b] = A[b] @ B[b]^T, A f16 [G, 256, 128], B f16 [G, 256, 128], C f16 [G, 256, 256]. G 2048. Peer: torch.bmm."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def bmm_transposed_b(a: T.In[T.f16, ("G", "M", "K")], b: T.In[T.f16, ("G", "N", "K")], c: T.Out[T.f16, ("G", "M", "N")]):
    G, M, K = a.shape
    N = b.shape[1]
    gs, ms, ns, ks = T.domain(0, G), T.domain(0, M), T.domain(0, N), T.domain(0, K)
    c[gs, ms, ns] = T.cast(T.matmul(a[gs, ms, ks], b[gs, ns, ks], transpose_rhs=True, acc_dtype=T.f32), T.f16)


KERNEL = bmm_transposed_b


def inputs(shape, rng):
    G, M, N, K = shape["G"], shape["M"], shape["N"], shape["K"]
    return dict(a=rng.standard_normal((G, M, K)).astype(np.float16), b=rng.standard_normal((G, N, K)).astype(np.float16))


def reference(a, b):
    return dict(c=np.matmul(a.astype(np.float64), b.astype(np.float64).transpose(0, 2, 1)).astype(np.float16))


def peer(a, b):
    return dict(c=torch.bmm(a, b.transpose(1, 2)))


TEST_SHAPES = [dict(G=1, M=1, N=1, K=1), dict(G=3, M=5, N=7, K=13), dict(G=5, M=37, N=19, K=67)]
BENCH_SHAPE = dict(G=2048, M=256, N=256, K=128)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.bmm"
