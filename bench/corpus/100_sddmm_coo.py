"""Sampled dense-dense matmul (SDDMM) over a COO pattern: for each nonzero e, vals[e] = dot(A[rows[e], :],
B[cols[e], :]) with A [M, K], B [N, K] f16, rows/cols int32 [NNZ], vals f32 [NNZ].
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sddmm_coo(A: T.In[T.f16, ("M", "K")], B: T.In[T.f16, ("N", "K")],
              rows: T.In[T.i32, ("NNZ",), T.Range(0, "M")], cols: T.In[T.i32, ("NNZ",), T.Range(0, "N")],
              vals: T.Out[T.f32, ("NNZ",)]):
    K = A.shape[1]
    ks = T.domain(0, K)
    for e in T.parallel(T.domain(0, rows.shape[0])):
        vals[e] = T.dot(A[rows[e], ks], B[cols[e], ks], acc_dtype=T.f32)


KERNEL = sddmm_coo


def inputs(shape, rng):
    M, N, K, NNZ = shape["M"], shape["N"], shape["K"], shape["NNZ"]
    return dict(A=rng.standard_normal((M, K)).astype(np.float16),
                B=rng.standard_normal((N, K)).astype(np.float16),
                rows=rng.integers(0, M, NNZ).astype(np.int32),
                cols=rng.integers(0, N, NNZ).astype(np.int32))


def reference(A, B, rows, cols):
    a, b = A.astype(np.float64), B.astype(np.float64)
    return {"vals": np.einsum("ek,ek->e", a[rows], b[cols])}


def peer(A, B, rows, cols):
    return {"vals": (A[rows].float() * B[cols].float()).sum(-1)}


TEST_SHAPES = [dict(M=1, N=1, K=1, NNZ=1), dict(M=7, N=5, K=13, NNZ=31), dict(M=19, N=23, K=128, NNZ=257)]
BENCH_SHAPE = dict(M=8192, N=8192, K=128, NNZ=4 * 1024 * 1024)
TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "torch.compile"


def OPS(shape):
    K, NNZ = shape["K"], shape["NNZ"]
    return 2 * NNZ * K, NNZ * (2 * K * 2 + 4 + 4 + 4)
