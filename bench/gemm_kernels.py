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
