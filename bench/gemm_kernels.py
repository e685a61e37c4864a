"""bf16 spellings of suite GEMMs for bench/splitk_gemm.py (the issue's bars are bf16; the examples'
inputs are f16, which the matrix tests at odd shapes). The bodies are the examples' own."""
import tessel
import tessel.language as T


@tessel.kernel
def splitk_gemm_bf16(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")], c: T.Out[T.f32, ("M", "N")],
                     SPLITS: T.Constexpr[int] = 4):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks, splits = T.domain(0, M), T.domain(0, N), T.domain(0, K), T.domain(0, SPLITS)
    chunk = (K + (SPLITS - 1)) // SPLITS
    partial = T.buffer(over=(splits, rows, cols), dtype=T.f32)
    for s in T.parallel(splits):
        mine = ks[T.minimum(s * chunk, K):T.minimum((s + 1) * chunk, K)]
        partial[s, rows, cols] = T.matmul(a[rows, mine], b[mine, cols], acc_dtype=T.f32)
    c[rows, cols] = T.sum(partial[splits, rows, cols], axis=0)


@tessel.kernel
def splitk_gemm_bf16_aligned(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")], c: T.Out[T.f32, ("M", "N")],
                             SPLITS: T.Constexpr[int] = 4):
    # The same split-K with chunks rounded up to a multiple of 64 elements (an author's choice of chunk
    # boundaries): every chunk then starts on a 128-byte boundary the provider compiler can see.
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks, splits = T.domain(0, M), T.domain(0, N), T.domain(0, K), T.domain(0, SPLITS)
    chunk = ((K + (SPLITS - 1)) // SPLITS + 63) // 64 * 64
    partial = T.buffer(over=(splits, rows, cols), dtype=T.f32)
    for s in T.parallel(splits):
        mine = ks[T.minimum(s * chunk, K):T.minimum((s + 1) * chunk, K)]
        partial[s, rows, cols] = T.matmul(a[rows, mine], b[mine, cols], acc_dtype=T.f32)
    c[rows, cols] = T.sum(partial[splits, rows, cols], axis=0)


def _end_row(offs, prefix, M):
    # max(OFFS[prefix]) clamped to [0, M] (examples/grouped_gemm.py)
    return T.cast(T.minimum(T.maximum(T.max(offs[prefix]), 0), T.cast(M, T.i32)), T.index)


@tessel.kernel
def grouped_gemm_bf16(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("G", "K", "N")], offs: T.In[T.i32, ("G",)],
                      c: T.Out[T.bf16, ("M", "N")]):
    """examples/grouped_gemm.py with bf16 operands and a bf16 C (torch._grouped_mm's), f32 accumulator."""
    M, K = a.shape
    G, N = b.shape[0], b.shape[2]
    rows, cols, ks, groups = T.domain(0, M), T.domain(0, N), T.domain(0, K), T.domain(0, G)
    for g in T.parallel(groups):
        mine = rows[_end_row(offs, groups[0:g], M):_end_row(offs, groups[0:g + 1], M)]
        c[mine, cols] = T.cast(T.matmul(a[mine, ks], b[g, ks, cols], acc_dtype=T.f32), T.bf16)
    c[rows[_end_row(offs, groups, M):M], cols] = T.cast(0.0, T.bf16)
