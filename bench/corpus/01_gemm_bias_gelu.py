"""GEMM + bias + tanh-GELU: C = gelu_tanh(A·B + bias), A [M,K] f16, B [K,N] f16, bias [N] f32,
C [M,N] f16 (f32 accumulation). Realistic size 4096×11008×4096. Peer: torch.compile."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gemm_bias_gelu(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")],
                   bias: T.In[T.f32, ("N",)], c: T.Out[T.f16, ("M", "N")]):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32, init=bias[cols])
    c[rows, cols] = T.cast(T.gelu(acc, approximate="tanh"), T.f16)


KERNEL = gemm_bias_gelu


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(
        a=rng.standard_normal((M, K)).astype(np.float16),
        b=(rng.standard_normal((K, N)) / math.sqrt(K)).astype(np.float16),
        bias=(0.5 * rng.standard_normal(N)).astype(np.float32),
    )


def reference(a, b, bias):
    x = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)
    y = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    return dict(c=y)


def peer(a, b, bias):
    import torch
    y = torch.nn.functional.gelu(a @ b + bias, approximate="tanh")
    return dict(c=y.to(torch.float16))


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=17, K=5), dict(M=17, N=67, K=31),
               dict(M=37, N=131, K=97)]
BENCH_SHAPE = dict(M=4096, N=11008, K=4096)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, 2 * (M * K + K * N + M * N) + 4 * N
