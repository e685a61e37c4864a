"""grouped_gemm: ragged grouped GEMM. For each group g, C[rows of g, :] = A[rows of g, :] @ B[g] with
A[M, K] (f16), B[G, K, N] (f16), an f32 accumulator and f32 C[M, N].

The groups are given by OFFS[G] (i32), the cumulative end row of each group (torch._grouped_mm's
`offs`): group g is rows [OFFS[g-1], OFFS[g]) with OFFS[-1] = 0. The offsets are read from device
memory inside the program, clamped to [0, M] and made non-decreasing (a running maximum, the identity
on valid offsets), so any offsets give disjoint in-bounds groups: a group whose end does not pass the
previous end is empty. Rows past the last end are zero.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def grouped_gemm(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("G", "K", "N")], offs: T.In[T.i32, ("G",)],
                 c: T.Out[T.f32, ("M", "N")]):
    M, K = a.shape
    G, N = b.shape[0], b.shape[2]
    rows, cols, ks, groups = T.domain(0, M), T.domain(0, N), T.domain(0, K), T.domain(0, G)

    def end_row(prefix):
        # max(OFFS[prefix]) clamped to [0, M]; an empty prefix gives 0
        return T.cast(T.minimum(T.maximum(T.max(offs[prefix]), 0), T.cast(M, T.i32)), T.index)

    for g in T.parallel(groups):
        mine = rows[end_row(groups[0:g]):end_row(groups[0:g + 1])]  # runtime bounds read from OFFS
        c[mine, cols] = T.matmul(a[mine, ks], b[g, ks, cols], acc_dtype=T.f32)
    c[rows[end_row(groups):M], cols] = 0.0


def reference(a, b, offs):
    M, N = a.shape[0], b.shape[2]
    c = np.zeros((M, N))
    begin = 0
    for g, end in enumerate(offs):
        end = min(max(int(end), begin), M)
        c[begin:end] = a[begin:end].astype(np.float64) @ b[g].astype(np.float64)
        begin = end
    return c
