"""Bias gradient of a linear layer: db[n] = sum over rows m of dy[m, n], dy bf16 [M, N], accumulated and
written in f32 (db [N])."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def bias_grad_colsum(dy: T.In[T.bf16, ("M", "N")], db: T.Out[T.f32, ("N",)]):
    M, N = dy.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    db[cols] = T.sum(dy[rows, cols], axis=0, acc_dtype=T.f32)


KERNEL = bias_grad_colsum


def inputs(shape, rng):
    return {"dy": rng.standard_normal((shape["M"], shape["N"])).astype(np.float32)}


def reference(dy):
    return {"db": dy.astype(np.float64).sum(axis=0)}


def peer(dy):
    return {"db": dy.float().sum(0)}


TEST_SHAPES = [dict(M=1, N=1), dict(M=127, N=3), dict(M=1031, N=17), dict(M=5, N=257)]
BENCH_SHAPE = dict(M=65536, N=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return M * N, 2 * M * N + 4 * N
