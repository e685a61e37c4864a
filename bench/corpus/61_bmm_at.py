"""Batched GEMM with the first operand stored transposed: C[b] = A[b]^T @ B[b], A [B, K, M],
B [B, K, N] f16, C f16 [B, M, N], f32 accumulation. B=16, M=N=K=1024.
Peer: torch.bmm(A.transpose(1, 2), B)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def bmm_at(a: T.In[T.f16, ("B", "K", "M")], b: T.In[T.f16, ("B", "K", "N")],
           c: T.Out[T.f16, ("B", "M", "N")]):
    nb, K, M = a.shape
    N = b.shape[2]
    bs, ms, ns, ks = T.domain(0, nb), T.domain(0, M), T.domain(0, N), T.domain(0, K)
    # contract axis 1 (K) of a with axis 1 (K) of b, batch axis 0 with axis 0: result [B, M, N]
    acc = T.contract(a[bs, ks, ms], b[bs, ks, ns], reduce=((1, 1),), batch=((0, 0),),
                     acc_dtype=T.f32)
    c[bs, ms, ns] = T.cast(acc, T.f16)


KERNEL = bmm_at
CONSTEXPRS = {}


def inputs(shape, rng):
    B, M, N, K = shape["B"], shape["M"], shape["N"], shape["K"]
    return dict(a=rng.standard_normal((B, K, M)).astype(np.float16),
                b=rng.standard_normal((B, K, N)).astype(np.float16))


def reference(a, b):
    return dict(c=np.einsum("bkm,bkn->bmn", a.astype(np.float64), b.astype(np.float64)))


def peer(a, b):
    import torch
    return dict(c=torch.bmm(a.transpose(1, 2), b))


TEST_SHAPES = [dict(B=1, M=1, N=1, K=1), dict(B=2, M=3, N=5, K=7), dict(B=3, M=17, N=13, K=31),
               dict(B=2, M=37, N=67, K=129)]
BENCH_SHAPE = dict(B=16, M=1024, N=1024, K=1024)
TOLERANCE = dict(rtol=1e-2, atol=2e-2)
PEER = "torch.bmm"


def OPS(shape):
    B, M, N, K = shape["B"], shape["M"], shape["N"], shape["K"]
    return 2 * B * M * N * K, 2 * B * (K * M + K * N + M * N)
