"""histogram: H[b] = #{ i : X[i] == b } for b in [0, B), over X[N] (i32, drawn from [-3, B)).

Values outside [0, B) are masked out and not counted; B is the extent of the output H[B].
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def histogram(x: T.In[T.i32, ("N",), T.Range(-3, "B")], h: T.Out[T.i32, ("B",)]):
    N, = x.shape
    B, = h.shape
    bins = T.domain(0, B)
    vals = x[T.domain(0, N)]
    in_range = (vals >= 0) & (vals < T.cast(B, T.i32))
    h[bins] = T.histogram(vals, bins, valid=in_range)


def reference(x, B=None):
    nbins = B
    return np.bincount(x[(x >= 0) & (x < nbins)], minlength=nbins).astype(np.int32)
