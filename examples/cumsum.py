"""cumsum: prefix sums along the rows of X[M, N] (f32) into Y[M, N].

Constexprs: EXCLUSIVE shifts by one (the first sum is 0), REVERSE scans from the last column.
    forward inclusive: Y[m, n] = sum_{j <= n} X[m, j]
    reverse exclusive: Y[m, n] = sum_{j >  n} X[m, j]
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def cumsum(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")],
           EXCLUSIVE: T.Constexpr[bool] = False, REVERSE: T.Constexpr[bool] = False):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = T.cumsum(x[m, cols], exclusive=EXCLUSIVE, reverse=REVERSE)


def reference(x, EXCLUSIVE=False, REVERSE=False):
    x = x.astype(np.float64)
    if REVERSE:
        x = np.flip(x, axis=1)
    s = np.cumsum(x, axis=1)
    if EXCLUSIVE:
        s = s - x
    return np.flip(s, axis=1) if REVERSE else s
