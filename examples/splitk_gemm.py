"""splitk_gemm: C[M, N] = A[M, K] @ B[K, N] (f16 inputs, f32 accumulator, f32 C) computed split-K: the
K axis is cut into SPLITS contiguous chunks of ceil(K / SPLITS) (the last ones may be short or empty),
each chunk's partial product goes to its slice of a kernel-level f32 buffer PARTIAL[SPLITS, M, N] (the
logical form of the invocation workspace), and C is the sum of the partials over the splits.

Constexpr: SPLITS >= 1. K = 0 (or any empty chunk) contributes zeros.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def splitk_gemm(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], c: T.Out[T.f32, ("M", "N")],
                SPLITS: T.Constexpr[int] = 4):
    if SPLITS < 1:
        raise ValueError(f"SPLITS must be at least 1, got {SPLITS}")
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks, splits = T.domain(0, M), T.domain(0, N), T.domain(0, K), T.domain(0, SPLITS)
    chunk = (K + (SPLITS - 1)) // SPLITS
    partial = T.buffer(over=(splits, rows, cols), dtype=T.f32)  # first-write: every split writes its slice
    for s in T.parallel(splits):
        mine = ks[T.minimum(s * chunk, K):T.minimum((s + 1) * chunk, K)]
        partial[s, rows, cols] = T.matmul(a[rows, mine], b[mine, cols], acc_dtype=T.f32)
    c[rows, cols] = T.sum(partial[splits, rows, cols], axis=0)


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)
