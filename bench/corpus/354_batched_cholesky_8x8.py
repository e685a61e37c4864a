"""Batched Cholesky factorization of small SPD matrices (per-point 8x8 covariances in Gaussian processes,
Kalman filters and 3D-Gaussian splatting pipelines): A f32 [B, 8, 8] symmetric positive definite; output the
lower-triangular L f32 [B, 8, 8] (zeros above the diagonal) with A = L L^T (Cholesky-Banachiewicz, column by
column). B 2^18. Peer: torch.compile(torch.linalg.cholesky)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def batched_cholesky(a: T.In[T.f32, ("B", 8, 8)], l: T.Out[T.f32, ("B", 8, 8)]):
    B = a.shape[0]
    rows = T.domain(0, 8)
    r = T.indices(rows)
    for b in T.parallel(T.domain(0, B)):
        cols = []                                   # the columns of L computed so far, each over rows
        for j in range(8):
            c = a[b, rows, j]
            for k in range(j):
                c = c - cols[k] * cols[k][j]        # subtract L[:, k] * L[j, k]
            d = T.sqrt(c[j])
            col = T.where(r == j, d, T.where(r > j, c / d, 0.0))
            cols.append(col)
            l[b, rows, j] = col


KERNEL = batched_cholesky


def inputs(shape, rng):
    B = shape["B"]
    g = rng.standard_normal((B, 8, 8))
    a = g @ g.transpose(0, 2, 1) / 8.0 + 0.5 * np.eye(8)
    return dict(a=a.astype(np.float32))


def reference(a):
    if a.shape[0] == 0:
        return dict(l=np.zeros(a.shape))
    return dict(l=np.linalg.cholesky(a.astype(np.float64)))


def peer(a):
    import torch
    return dict(l=torch.linalg.cholesky(a))


def OPS(shape):
    B = shape["B"]
    return B * (8 ** 3 // 3 + 64), B * 2 * 64 * 4


TEST_SHAPES = [dict(B=0), dict(B=1), dict(B=7), dict(B=37)]
BENCH_SHAPE = dict(B=2 ** 18)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
