"""batched_gemm: C[b, m, n] = sum_k A[b, m, k] * B[b, k, n] for A[B, M, K], B[B, K, N] (f16), with an
f32 accumulator and f32 C: one contraction with a batch pair and a reduce pair.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def batched_gemm(a: T.In[T.f16, ("B", "M", "K")], b: T.In[T.f16, ("B", "K", "N")], c: T.Out[T.f32, ("B", "M", "N")]):
    nb, M, K = a.shape
    N = b.shape[2]
    db, dm, dn, dk = T.domain(0, nb), T.domain(0, M), T.domain(0, N), T.domain(0, K)
    c[db, dm, dn] = T.matmul(a[db, dm, dk], b[db, dk, dn], acc_dtype=T.f32)


def reference(a, b):
    return np.matmul(a.astype(np.float64), b.astype(np.float64))
