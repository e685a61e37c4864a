"""Log-softmax over each row: y = x - max(x) - log(sum(exp(x - max(x)))), f32, 16384x32000
(vocabulary rows). Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def log_softmax(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        shifted = row - T.max(row)
        y[m, cols] = shifted - T.log(T.sum(T.exp(shifted)))


KERNEL = log_softmax
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=(4.0 * rng.standard_normal((M, N))).astype(np.float32))


def reference(x):
    xd = x.astype(np.float64)
    s = xd - xd.max(axis=1, keepdims=True)
    return dict(y=s - np.log(np.exp(s).sum(axis=1, keepdims=True)))


def peer(x):
    import torch
    return dict(y=torch.log_softmax(x, dim=-1))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=7, N=4099), dict(M=2, N=32000)]
BENCH_SHAPE = dict(M=16384, N=32000)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 4 * M * N, 4 * 2 * M * N
