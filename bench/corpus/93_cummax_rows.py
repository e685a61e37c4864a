"""cummax_rows: running maximum along each row of x [M, N] (f32) with the index where it was attained
(the first index on ties): values[m, n] = max_{j <= n} x[m, j], indices[m, n] = the smallest j <= n with
x[m, j] == values[m, n]  (f32 [M, N], int64 [M, N]).
"""
import math

import numpy as np

import tessel
import tessel.language as T


@tessel.fn
def keep_first_max(a, i, b, j):            # (earlier value, position), (later value, position)
    later = b > a                          # strictly larger: a tie keeps the earlier position
    return T.where(later, b, a), T.where(later, j, i)


@tessel.kernel
def cummax_rows(x: T.In[T.f32, ("M", "N")], values: T.Out[T.f32, ("M", "N")],
                indices: T.Out[T.i64, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        v, i = T.scan((x[m, cols], T.indices(cols)), axis=0, identity=(-math.inf, 0),
                      combine=keep_first_max)
        values[m, cols] = v
        indices[m, cols] = T.cast(i, T.i64)


KERNEL = cummax_rows


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    if M * N <= 1 << 20:
        # test shapes: small integers, so that ties (and the first-index rule) occur often
        return dict(x=rng.integers(-20, 21, size=(M, N)).astype(np.float32) + 0.5)
    # bench shape: continuous values (no ties in practice), so torch.cummax's last-index-on-ties rule
    # does not make the peer's indices differ from the kernel's
    return dict(x=rng.standard_normal((M, N)).astype(np.float32))


def reference(x):
    M, N = x.shape
    vals = np.empty((M, N), np.float64)
    idx = np.empty((M, N), np.int64)
    for m in range(M):
        best, at = -np.inf, 0
        for n in range(N):
            if x[m, n] > best:
                best, at = float(x[m, n]), n
            vals[m, n], idx[m, n] = best, at
    return dict(values=vals, indices=idx)


def peer(x):
    import torch
    # torch.cummax reports the LAST index on ties (its indices differ from reference() where a running
    # maximum repeats); the values agree
    v, i = torch.cummax(x, dim=1)
    return dict(values=v, indices=i)


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=4096, N=8192)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.cummax(dim=1)"


def OPS(shape):
    n = shape["M"] * shape["N"]
    return n, 4 * n + 4 * n + 8 * n
