"""GEMM + residual add + cast: Y = (A·B)·alpha + R, A [M,K], B [K,N], R [M,N], Y [M,N], all bf16
(accumulate in f32, round once). 8192x4096x4096 (MxNxK). Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gemm_residual(a: T.In[T.bf16, ("M", "K")],
                  b: T.In[T.bf16, ("K", "N")],
                  r: T.In[T.bf16, ("M", "N")],
                  y: T.Out[T.bf16, ("M", "N")],
                  alpha: T.f32):
    acc = T.matmul(a[:, :], b[:, :], acc_dtype=T.f32)
    y[:, :] = T.cast(acc * alpha + T.cast(r[:, :], T.f32), T.bf16)


KERNEL = gemm_residual
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return {
        "a": rng.standard_normal((M, K)).astype(np.float32),
        "b": (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float32),
        "r": rng.standard_normal((M, N)).astype(np.float32),
        "alpha": 0.75,
    }


def reference(a, b, r, alpha):
    acc = a.astype(np.float64) @ b.astype(np.float64)
    return {"y": acc * alpha + r.astype(np.float64)}


def peer(a, b, r, alpha):
    return {"y": (a @ b) * alpha + r}


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=131, K=67), dict(M=29, N=65, K=130),
               dict(M=67, N=100, K=97)]
BENCH_SHAPE = dict(M=8192, N=4096, K=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K + 2 * M * N, 2 * (M * K + K * N + 2 * M * N)
