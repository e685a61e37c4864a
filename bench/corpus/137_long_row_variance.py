"""Variance of a few very long rows: var[r] = mean((x[r] - mean(x[r]))^2) (population), x f32 [R, N], R64 N4194304, f32 out. Peer: torch.var(unbiased=False) under torch.compile."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def long_row_variance(x: T.In[T.f32, ("R", "N")], var: T.Out[T.f32, ("R",)]):
    R, N = x.shape
    cols = T.domain(0, N)
    nf = T.cast(N, T.f32)
    for r in T.parallel(T.domain(0, R)):
        row = x[r, cols]
        mean = T.sum(row) / nf
        d = row - mean
        var[r] = T.sum(d * d) / nf


KERNEL = long_row_variance


def inputs(shape, rng):
    R, N = shape["R"], shape["N"]
    return {"x": (rng.standard_normal((R, N)) * 3.0 + 5.0).astype(np.float32)}


def reference(x):
    return {"var": x.astype(np.float64).var(axis=1)}


def peer(x):
    import torch
    return {"var": torch.var(x, dim=1, unbiased=False)}


def OPS(shape):
    n = shape["R"] * shape["N"]
    return 4 * n, 4 * n + 4 * shape["R"]


TEST_SHAPES = [dict(R=1, N=1), dict(R=3, N=127), dict(R=5, N=100003)]
BENCH_SHAPE = dict(R=64, N=4194304)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile(torch.var(unbiased=False))"
