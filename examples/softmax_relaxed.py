"""softmax_relaxed: softmax.py's row softmax, written the same way, with `numerics="relaxed_normalization"`.

The permission lets pgpu-online-normalize (seed 002 §1, §3) join the maximum and the sum of exponentials
into one pass with a running maximum when a row is longer than one block: a long row is then read twice
(summaries, normalized store) instead of three times. Rounding may differ from the two-pass form by a few
ulps; a row whose maximum is -inf sums to 0 instead of NaN (its outputs are NaN either way).
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel(numerics="relaxed_normalization")
def softmax_relaxed(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        e = T.exp(row - T.max(row))
        y[m, cols] = e / T.sum(e)


def reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True)) if x.shape[1] else x
    return e / e.sum(axis=1, keepdims=True) if x.shape[1] else x
