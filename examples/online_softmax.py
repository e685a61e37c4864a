"""online_softmax: Y[m, :] = softmax(X[m, :]) for X[M, N] (f32), with the row statistics computed by a
region fold whose summary is a record {m: max, den: sum of exp(x - max)}; `combine` rescales both
denominators to the larger max, so the columns may be cut into any contiguous slices.
"""
import math

import numpy as np

import tessel
import tessel.language as T


@tessel.fn
def summarize(s):
    mx = T.max(s)
    return T.record(m=mx, den=T.sum(T.exp(s - mx)))


@tessel.fn
def combine(a, b):
    mx = T.maximum(a.m, b.m)
    # exp(m - mx) with m == mx taken as 1, so that two empty summaries (m = -inf) stay empty.
    wa = T.where(a.m == mx, 1.0, T.exp(a.m - mx))
    wb = T.where(b.m == mx, 1.0, T.exp(b.m - mx))
    return T.record(m=mx, den=a.den * wa + b.den * wb)


@tessel.kernel(numerics="relaxed_normalization")
def online_softmax(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        stats = T.region_fold(sources=row, axis=0, identity=T.record(m=-math.inf, den=0.0),
                              summarize=summarize, combine=combine)
        y[m, cols] = T.exp(row - stats.m) / stats.den


def reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
