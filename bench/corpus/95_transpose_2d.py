"""transpose_2d: out = x^T for x [R, C] (f16): out[c, r] = x[r, c]."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def transpose_2d(x: T.In[T.f16, ("R", "C")], out: T.Out[T.f16, ("C", "R")]):
    R, C = x.shape
    rows, cols = T.domain(0, R), T.domain(0, C)
    out[cols, rows] = T.transpose(x[rows, cols])


KERNEL = transpose_2d


def inputs(shape, rng):
    return dict(x=rng.standard_normal((shape["R"], shape["C"])).astype(np.float16))


def reference(x):
    return dict(out=np.ascontiguousarray(x.T))


def peer(x):
    return dict(out=x.t().contiguous())


TEST_SHAPES = [dict(R=1, C=1), dict(R=1, C=37), dict(R=3, C=127), dict(R=131, C=67), dict(R=257, C=1)]
BENCH_SHAPE = dict(R=8192, C=8192)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "x.t().contiguous()"


def OPS(shape):
    return 0, 2 * 2 * shape["R"] * shape["C"]
