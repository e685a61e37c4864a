"""cummax: running maximum along the rows of X[M, N] (f32), Y[m, n] = max_{j <= n} X[m, j]
(with REVERSE: max_{j >= n}). A NaN propagates to the rest of the scan.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def cummax(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], REVERSE: T.Constexpr[bool] = False):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = T.cummax(x[m, cols], reverse=REVERSE)


def reference(x, REVERSE=False):
    if REVERSE:
        return np.flip(np.maximum.accumulate(np.flip(x, axis=1), axis=1), axis=1)
    return np.maximum.accumulate(x, axis=1)
