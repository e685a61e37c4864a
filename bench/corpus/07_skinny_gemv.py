"""Skinny GEMV (decode): y = W·x for a batch of 1–16 vectors: W [N,K] bf16, X [B,K] bf16,
Y [B,N] bf16 (Y = X·Wᵀ, f32 accumulation). Realistic size N=4096, K=14336 (W is 4096×14336),
benchmarked at batch 1. Peer: cuBLAS via torch (x @ W.T)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def skinny_gemv(w: T.In[T.bf16, ("N", "K")], x: T.In[T.bf16, ("B", "K")],
                y: T.Out[T.bf16, ("B", "N")]):
    N, K = w.shape
    B = x.shape[0]
    batch, outs, ks = T.domain(0, B), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(x[batch, ks], w[outs, ks], transpose_rhs=True, acc_dtype=T.f32)
    y[batch, outs] = T.cast(acc, T.bf16)


KERNEL = skinny_gemv


def _bf16(a):
    """Round float32 to bfloat16 (nearest even), returned as float64."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    B, N, K = shape["B"], shape["N"], shape["K"]
    return dict(
        w=(rng.standard_normal((N, K)) / math.sqrt(K)).astype(np.float32),
        x=rng.standard_normal((B, K)).astype(np.float32),
    )


def reference(w, x):
    return dict(y=_bf16(x) @ _bf16(w).T)


def peer(w, x):
    return dict(y=x @ w.T)


TEST_SHAPES = [dict(B=1, N=1, K=1), dict(B=1, N=67, K=257), dict(B=3, N=131, K=211),
               dict(B=16, N=37, K=1031)]
BENCH_SHAPE = dict(B=1, N=4096, K=14336)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "cuBLAS (torch x @ W.T)"


def OPS(shape):
    B, N, K = shape["B"], shape["N"], shape["K"]
    return 2 * B * N * K, 2 * (N * K + B * K + B * N)
