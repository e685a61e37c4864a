"""Batched small matrix inverse-free solve step: one Jacobi iteration x_new = D^-1 (b - (A - D) x) for a batch of dense 64x64 systems, A f32 [B, 64, 64], b and x f32 [B, 64], out f32 [B, 64]. B 65536. Peer: torch.compile."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def batched_jacobi_step(A: T.In[T.f32, ("B", 64, 64)], b: T.In[T.f32, ("B", 64)], x: T.In[T.f32, ("B", 64)],
                        out: T.Out[T.f32, ("B", 64)]):
    nb = A.shape[0]
    rows, cols = T.domain(0, 64), T.domain(0, 64)
    r = T.indices(rows)
    for n in T.parallel(T.domain(0, nb)):
        ax = T.matvec(A[n, rows, cols], x[n, cols])      # A x
        diag = A[n, r, r]                                # the diagonal, over rows
        out[n, rows] = (b[n, rows] - (ax - diag * x[n, rows])) / diag


KERNEL = batched_jacobi_step


def inputs(shape, rng):
    B = shape["B"]
    A = rng.standard_normal((B, 64, 64)).astype(np.float32)
    A[:, np.arange(64), np.arange(64)] += np.float32(64.0)     # diagonally dominant
    return dict(A=A, b=rng.standard_normal((B, 64)).astype(np.float32),
                x=rng.standard_normal((B, 64)).astype(np.float32))


def reference(A, b, x):
    A64, b64, x64 = A.astype(np.float64), b.astype(np.float64), x.astype(np.float64)
    d = np.diagonal(A64, axis1=1, axis2=2)
    off = np.einsum("bij,bj->bi", A64, x64) - d * x64
    return dict(out=((b64 - off) / d).astype(np.float32))


def peer(A, b, x):
    d = torch.diagonal(A, dim1=1, dim2=2)
    off = torch.bmm(A, x.unsqueeze(-1)).squeeze(-1) - d * x
    return dict(out=(b - off) / d)


TEST_SHAPES = [dict(B=1), dict(B=3), dict(B=37)]
BENCH_SHAPE = dict(B=65536)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
