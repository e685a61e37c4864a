"""matmul: C[M, N] = A[M, K] @ B[K, N] in bf16 with an f32 accumulator (what torch.matmul does in bf16).

The contraction accumulates in f32 (acc_dtype) and the result is rounded once to bf16 when stored.
K = 0 gives zeros.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def matmul(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")], c: T.Out[T.bf16, ("M", "N")]):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32)
    c[rows, cols] = T.cast(acc, T.bf16)


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)
