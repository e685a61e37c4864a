"""Numerically stable running log-sum-exp along each row: out[m, j] = log(sum_{i <= j} exp(x[m, i])),
x and out f32 [M, N]. Second spelling: a scan of (running max, sum of exp(x - running max)) pairs,
the online-softmax state; the output is max + log(sum)."""
import math

import numpy as np

import tessel
import tessel.language as T


@tessel.fn
def merge(m1: T.f32, s1: T.f32, m2: T.f32, s2: T.f32):
    m = T.maximum(m1, m2)
    w1 = T.where(m1 == -math.inf, 0.0, T.exp(m1 - m))
    w2 = T.where(m2 == -math.inf, 0.0, T.exp(m2 - m))
    return m, s1 * w1 + s2 * w2


@tessel.kernel
def logcumsumexp(x: T.In[T.f32, ("M", "N")], out: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        mx, s = T.scan((row, T.full_like(row, 1.0)), axis=0, identity=(-math.inf, 0.0), combine=merge)
        out[m, cols] = mx + T.log(s)


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
# Both components of one scan feed pointwise math before the store (docs/language.md, "Scans as values":
# a scan's result may feed pointwise math); no reduction is written, yet the Triton path refuses it:
# Lead, 2026-12-05: fixed in the compiler (two results of one scan met with the same axes are one stored
# scan, kir-to-pgpu's ScanValues.cpp); XFAIL removed.


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 7 * M * N, 8 * M * N
