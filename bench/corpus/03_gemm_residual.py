"""GEMM + residual add + cast: Y = (A·B)·alpha + R, A [M,K], B [K,N], R [M,N], Y [M,N], all bf16,
alpha a runtime f32 scalar (f32 accumulation). Realistic size M=8192, N=4096, K=4096.
Peer: torch.compile."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gemm_residual(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")],
                  r: T.In[T.bf16, ("M", "N")], y: T.Out[T.bf16, ("M", "N")], alpha: T.f32):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32)
    y[rows, cols] = T.cast(acc * alpha + T.cast(r[rows, cols], T.f32), T.bf16)


KERNEL = gemm_residual


def _bf16(a):
    """Round float32 to bfloat16 (nearest even), returned as float64."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(
        a=rng.standard_normal((M, K)).astype(np.float32),
        b=(rng.standard_normal((K, N)) / math.sqrt(K)).astype(np.float32),
        r=rng.standard_normal((M, N)).astype(np.float32),
        alpha=0.75,
    )


def reference(a, b, r, alpha):
    return dict(y=(_bf16(a) @ _bf16(b)) * alpha + _bf16(r))


def peer(a, b, r, alpha):
    return dict(y=(a @ b) * alpha + r)


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=17, K=5), dict(M=17, N=67, K=31),
               dict(M=29, N=131, K=97)]
BENCH_SHAPE = dict(M=8192, N=4096, K=4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, 2 * (M * K + K * N + 2 * M * N)
