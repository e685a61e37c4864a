"""Gram matrix of a tall matrix: G = X^T X, X f16 [N, D], G f32 [D, D]. N1048576 D128. Peer: torch (X.T @ X in f32 accumulate: torch.matmul of f16 then .float(), or with X.float())."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def gram_matrix(x: T.In[T.f16, ("N", "D")], g: T.Out[T.f32, ("D", "D")]):
    N, D = x.shape
    rows, dims = T.domain(0, N), T.domain(0, D)
    g[dims, dims] = T.contract(x[rows, dims], x[rows, dims], reduce=((0, 0),), acc_dtype=T.f32)


KERNEL = gram_matrix


def inputs(shape, rng):
    return {"x": rng.standard_normal((shape["N"], shape["D"])).astype(np.float16)}


def reference(x):
    x64 = x.astype(np.float64)
    return {"g": x64.T @ x64}


def peer(x):
    return {"g": x.float().T @ x.float()}


def OPS(shape):
    N, D = shape["N"], shape["D"]
    return 2 * N * D * D, 2 * N * D + 4 * D * D


TEST_SHAPES = [dict(N=1, D=1), dict(N=127, D=5), dict(N=1031, D=17)]
BENCH_SHAPE = dict(N=1048576, D=128)
TOLERANCE = dict(rtol=1e-4, atol=1e-3)
# At the bench shape both sides sum 1M f16 products in f32: partial sums reach ~1e3, so each rounds to
# ~1e-2 absolute (an H100 run: 132 of 16384 entries near zero differed by up to 7e-3).
BENCH_TOLERANCE = dict(rtol=1e-4, atol=5e-2)
PEER = "torch X.float().T @ X.float()"
