"""Numerically stable running log-sum-exp along each row: out[m, j] = log(sum_{i <= j} exp(x[m, i])),
x and out f32 [M, N]. Written as a scan whose combine is logaddexp (identity -inf)."""
import math

import numpy as np

import tessel
import tessel.language as T


@tessel.fn
def logaddexp(a: T.f32, b: T.f32) -> T.f32:
    hi = T.maximum(a, b)
    lo = T.minimum(a, b)
    return T.where(hi == -math.inf, hi, hi + T.log1p(T.exp(lo - hi)))


@tessel.kernel
def logcumsumexp(x: T.In[T.f32, ("M", "N")], out: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        out[m, cols] = T.scan(x[m, cols], axis=0, identity=-math.inf, combine=logaddexp)


KERNEL = logcumsumexp


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    x = (4.0 * rng.standard_normal((M, N))).astype(np.float32)
    if N > 3:
        x[:, N // 3] += 60.0           # a large value partway: later prefixes are dominated by it
    return {"x": x}


def reference(x):
    return {"out": np.logaddexp.accumulate(x.astype(np.float64), axis=1)}


def peer(x):
    import torch
    return {"out": torch.logcumsumexp(x, dim=1)}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=5, N=1031)]
BENCH_SHAPE = dict(M=4096, N=8192)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 5 * M * N, 8 * M * N
