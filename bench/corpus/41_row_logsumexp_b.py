"""Row logsumexp in one pass: lse[m] = log(sum_n exp(x[m, n])) for f32 x [M, N] (8192 x 8191 at the
bench shape), computed stably in a single pass over each row with a running (maximum, rescaled sum)
summary, the way online softmax does it: a T.region_fold over the row whose summary is a T.record
with the running max and the running sum. Peer: torch.logsumexp."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def summarize(s):                       # a slice of the row
    mx = T.max(s)
    return T.record(m=mx, den=T.sum(T.exp(s - mx)))


@tessel.fn
def combine(a, b):                      # earlier summary, later summary
    mx = T.maximum(a.m, b.m)
    wa = T.where(a.m == mx, 1.0, T.exp(a.m - mx))
    wb = T.where(b.m == mx, 1.0, T.exp(b.m - mx))
    return T.record(m=mx, den=a.den * wa + b.den * wb)


@tessel.kernel
def row_logsumexp(x: T.In[T.f32, ("M", "N")], lse: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        stats = T.region_fold(sources=row, axis=0, identity=T.record(m=-math.inf, den=0.0),
                              summarize=summarize, combine=combine, operands=())
        lse[m] = stats.m + T.log(stats.den)


KERNEL = row_logsumexp
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return {"x": (rng.standard_normal((M, N)) * 3.0).astype(np.float32)}


def reference(x):
    x64 = x.astype(np.float64)
    mx = x64.max(axis=1)
    return {"lse": mx + np.log(np.exp(x64 - mx[:, None]).sum(axis=1))}


def peer(x):
    import torch
    return {"lse": torch.logsumexp(x, dim=1)}


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 4 * M * N, 4 * M * N + 4 * M          # max, sub, exp, add per element; read x, write lse


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=5, N=1031), dict(M=17, N=2053),
               dict(M=1, N=4099)]
BENCH_SHAPE = dict(M=8192, N=8191)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.logsumexp"
