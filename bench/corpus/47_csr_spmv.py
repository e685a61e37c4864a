"""Sparse matrix-vector product with A in CSR: y = A x, with indptr [M+1] (i32), indices [nnz] (i32
column ids) and values [nnz] (f32); row m holds the nonzeros indptr[m] .. indptr[m+1]-1 (rows may be
empty). 1M rows with 16 nonzeros a row at the bench shape. Peer: torch.sparse (CSR) mv."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def csr_spmv(indptr: T.In[T.i32, ("M1",)],
             indices: T.In[T.i32, ("NNZ",), T.Range(0, "N")],
             values: T.In[T.f32, ("NNZ",)],
             x: T.In[T.f32, ("N",)],
             y: T.Out[T.f32, ("M",)]):
    M = y.shape[0]                              # indptr has M + 1 entries
    nz = T.domain(0, values.shape[0])
    for m in T.parallel(T.domain(0, M)):
        row = nz[indptr[m]:indptr[m + 1]]       # may be empty
        y[m] = T.sum(values[row] * x[indices[row]])


KERNEL = csr_spmv
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, NNZ = shape["M"], shape["N"], shape["NNZ"]
    assert shape["M1"] == M + 1
    # NNZ nonzeros spread over the rows; some rows empty (and the first/last may be)
    counts = rng.multinomial(NNZ, rng.dirichlet(np.full(M, 0.5))) if M > 1 else np.array([NNZ])
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return dict(indptr=indptr,
                indices=rng.integers(0, N, size=NNZ).astype(np.int32),
                values=rng.standard_normal(NNZ).astype(np.float32),
                x=rng.standard_normal(N).astype(np.float32))


def reference(indptr, indices, values, x):
    M = indptr.shape[0] - 1
    prod = values.astype(np.float64) * x.astype(np.float64)[indices]
    y = np.zeros(M)
    rows = np.repeat(np.arange(M), np.diff(indptr))
    np.add.at(y, rows, prod)
    return dict(y=y)


def peer(indptr, indices, values, x):
    import torch
    A = torch.sparse_csr_tensor(indptr, indices, values, size=(indptr.numel() - 1, x.numel()))
    return dict(y=torch.mv(A, x))


TEST_SHAPES = [dict(M=1, M1=2, N=1, NNZ=1), dict(M=7, M1=8, N=13, NNZ=29),
               dict(M=97, M1=98, N=61, NNZ=1031), dict(M=257, M1=258, N=1009, NNZ=17)]
BENCH_SHAPE = dict(M=1 << 20, M1=(1 << 20) + 1, N=1 << 20, NNZ=16 << 20)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.sparse_csr_tensor(...) mv"


def OPS(shape):
    M, NNZ = shape["M"], shape["NNZ"]
    return 2 * NNZ, NNZ * (4 + 4 + 4) + (M + 1) * 4 + M * 4 + shape["N"] * 4
