"""Row-wise quantile by counting: for each row, the number of elements strictly less than the row's mean, int32 [M], x f32 [M, N]. M16384 N4096. Peer: torch ((x < x.mean(1, keepdim=True)).sum(1))."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def count_below_mean(x: T.In[T.f32, ("M", "N")], count: T.Out[T.i32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        mean = T.sum(row) / T.cast(N, T.f32)
        count[m] = T.sum(T.cast(row < mean, T.i32))


KERNEL = count_below_mean


def inputs(shape, rng):
    # values on a 1/64 grid: sums of them are exact in f32 and f64 alike, so every order of the
    # mean's sum gives the same mean and the count has no near-tie to flip
    return dict(x=(rng.integers(-256, 256, (shape["M"], shape["N"])) / 64.0).astype(np.float32))


def reference(x):
    mean = x.astype(np.float64).sum(1, keepdims=True) / x.shape[1]
    mean32 = mean.astype(np.float32)
    return dict(count=(x < mean32).sum(1).astype(np.int32))


def peer(x):
    return dict(count=(x < x.mean(1, keepdim=True)).sum(1).to(torch.int32))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch"
