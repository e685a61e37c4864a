"""In-place GEMM with alpha and beta (BLAS sgemm's C = alpha A B + beta C, as addmm with scaled
accumulation): C f32 [M, N] updated in place, C = alpha * (A @ B) + beta * C, with A bf16 [M, K] and B bf16
[K, N], alpha and beta runtime scalars, f32 accumulation. M4096 N4096 K4096. Peer:
torch.compile(torch.addmm(C, A, B, beta=beta, alpha=alpha))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gemm_alpha_beta(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")], c: T.InOut[T.f32, ("M", "N")],
                    alpha: T.f32, beta: T.f32):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    c[rows, cols] = alpha * T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32) + beta * c[rows, cols]


KERNEL = gemm_alpha_beta


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(a=rng.standard_normal((M, K)).astype(np.float32), b=rng.standard_normal((K, N)).astype(np.float32),
                c=rng.standard_normal((M, N)).astype(np.float32), alpha=0.75, beta=-1.25)


def reference(a, b, c, alpha, beta):
    return dict(c=alpha * (a.astype(np.float64) @ b.astype(np.float64)) + beta * c.astype(np.float64))


def peer(a, b, c, alpha, beta):
    import torch
    if a.is_cuda:                      # bf16 operands, f32 accumulation and result (addmm's out_dtype: CUDA only)
        return dict(c=torch.addmm(c, a, b, out_dtype=torch.float32, beta=beta, alpha=alpha))
    return dict(c=torch.addmm(c, a.float(), b.float(), beta=beta, alpha=alpha))


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K + 3 * M * N, 2 * (M * K + K * N) + 8 * M * N


TEST_SHAPES = [dict(M=0, N=3, K=5), dict(M=1, N=1, K=1), dict(M=3, N=7, K=0), dict(M=17, N=33, K=67),
               dict(M=37, N=129, K=131)]
BENCH_SHAPE = dict(M=4096, N=4096, K=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
BENCH_TOLERANCE = dict(rtol=2e-3, atol=2e-2)
PEER = "torch.compile"
