"""Cumulative product along each row, f32 [M, N]. M4096 N4096 (inputs near 1 so it neither over- nor underflows). Peer: torch.cumprod."""
import numpy as np

import tessel
import tessel.language as T


@tessel.fn
def mul(a: T.f32, b: T.f32) -> T.f32:
    return a * b


@tessel.kernel
def cumprod_rows(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = T.scan(x[m, cols], axis=0, identity=1.0, combine=mul)


KERNEL = cumprod_rows


def inputs(shape, rng):
    return {"x": rng.uniform(0.99, 1.01, (shape["M"], shape["N"])).astype(np.float32)}


def reference(x):
    return {"y": np.cumprod(x.astype(np.float64), axis=1)}


def peer(x):
    import torch
    return {"y": torch.cumprod(x, dim=1)}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=4096, N=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "torch.cumprod"
