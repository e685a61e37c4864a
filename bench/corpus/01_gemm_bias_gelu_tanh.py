"""GEMM + bias + tanh-GELU: C = gelu_tanh(A·B + bias), A [M,K] f16, B [K,N] f16, bias [N] f32,
C f16. 4096x11008x4096 (MxNxK). Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gemm_bias_gelu(a: T.In[T.f16, ("M", "K")],
                   b: T.In[T.f16, ("K", "N")],
                   bias: T.In[T.f32, ("N",)],
                   c: T.Out[T.f16, ("M", "N")]):
    acc = T.matmul(a[:, :], b[:, :], acc_dtype=T.f32, init=bias[:])
    c[:, :] = T.cast(T.gelu(acc, approximate="tanh"), T.f16)


KERNEL = gemm_bias_gelu
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return {
        "a": rng.standard_normal((M, K)).astype(np.float16),
        "b": (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float16),
        "bias": (0.5 * rng.standard_normal(N)).astype(np.float32),
    }


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def reference(a, b, bias):
    acc = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)
    return {"c": _gelu_tanh(acc).astype(np.float16)}


def peer(a, b, bias):
    import torch
    y = torch.nn.functional.gelu(a @ b + bias, approximate="tanh")
    return {"c": y.to(torch.float16)}


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=17, K=130), dict(M=37, N=131, K=67),
               dict(M=65, N=200, K=129)]
BENCH_SHAPE = dict(M=4096, N=11008, K=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, 2 * (M * K + K * N + M * N) + 4 * N
