"""Softmax over the first axis (each column normalized), f32 [M, N], M=8192 N=16384... use M=4096, N=16384. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def softmax_columns(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    rows = T.domain(0, M)
    for n in T.parallel(T.domain(0, N)):
        col = x[rows, n]
        e = T.exp(col - T.max(col))
        y[rows, n] = e / T.sum(e)


KERNEL = softmax_columns


def inputs(shape, rng):
    return {"x": rng.standard_normal((shape["M"], shape["N"])).astype(np.float32) * 3.0}


def reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return {"y": e / e.sum(axis=0, keepdims=True)}


def peer(x):
    import torch
    return {"y": torch.softmax(x, dim=0)}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=129, N=5), dict(M=1031, N=17)]
BENCH_SHAPE = dict(M=4096, N=16384)
TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "torch.compile"
