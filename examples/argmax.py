"""argmax: for every row m of X[M, N] (f32), V[m] = max_n X[m, n] and I[m] = the lowest n where
it occurs (i64). A NaN propagates: such a row gives V[m] = NaN and the first NaN position.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def argmax(x: T.In[T.f32, ("M", "N")], v: T.Out[T.f32, ("M",)], idx: T.Out[T.i64, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        best, pos = T.argmax(x[m, cols], tie="lowest", nan="propagate")
        v[m] = best
        idx[m] = T.cast(pos, T.i64)


def reference(x):
    return {"v": x.max(axis=1), "idx": np.argmax(x, axis=1).astype(np.int64)}
