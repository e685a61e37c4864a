"""rmsnorm: for every row m of X[M, N] (f32)
    Y[m, n] = X[m, n] * rsqrt(sum_n X[m, n]^2 / N + eps) * W[n]
with a runtime scalar eps and a per-column weight W.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def rmsnorm(x: T.In[T.f32, ("M", "N")], w: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    weight = w[cols]
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        mean_square = T.sum(row * row) / T.cast(N, T.f32)
        y[m, cols] = row * T.rsqrt(mean_square + eps) * weight


def reference(x, w, eps):
    x = x.astype(np.float64)
    if x.shape[1] == 0:
        return x
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + np.float32(eps)) * w
