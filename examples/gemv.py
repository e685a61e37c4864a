"""gemv: Y[m] = sum_k A[m, k] * X[k] for A[M, K] and X[K] (f16), accumulated and returned in f32."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def gemv(a: T.In[T.f16, ("M", "K")], x: T.In[T.f16, ("K",)], y: T.Out[T.f32, ("M",)]):
    M, K = a.shape
    rows, ks = T.domain(0, M), T.domain(0, K)
    y[rows] = T.matvec(a[rows, ks], x[ks], acc_dtype=T.f32)


def reference(a, x):
    return a.astype(np.float64) @ x.astype(np.float64)
