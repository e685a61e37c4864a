"""batched_gemv: Y[b, m] = sum_k A[b, m, k] * X[b, k] for A[B, M, K], X[B, K] (f16), accumulated in f32.

Written as users often write it, a loop over the batch around `T.matvec`. The same computation spelled
as one batched `T.contract` (`batched_gemv_contract`) compiles to the same kernel: the row workset that
is each program's whole body becomes a program axis (pgpu-flatten-worksets).
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def batched_gemv(a: T.In[T.f16, ("B", "M", "K")], x: T.In[T.f16, ("B", "K")], y: T.Out[T.f32, ("B", "M")]):
    B, M, K = a.shape
    rows, ks = T.domain(0, M), T.domain(0, K)
    for b in T.parallel(T.domain(0, B)):
        y[b, rows] = T.matvec(a[b, rows, ks], x[b, ks], acc_dtype=T.f32)


@tessel.kernel
def batched_gemv_contract(a: T.In[T.f16, ("B", "M", "K")], x: T.In[T.f16, ("B", "K")],
                          y: T.Out[T.f32, ("B", "M")]):
    B, M, K = a.shape
    bs, rows, ks = T.domain(0, B), T.domain(0, M), T.domain(0, K)
    y[bs, rows] = T.contract(a[bs, rows, ks], x[bs, ks], reduce=((2, 1),), batch=((0, 0),), acc_dtype=T.f32)


def reference(a, x):
    return np.einsum("bmk,bk->bm", a.astype(np.float64), x.astype(np.float64))
