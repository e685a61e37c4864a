"""Linear layer with a squared-ReLU activation: y = relu(x @ W^T + b)^2 for an nn.Linear weight W [N, K]
(out-features first), x [M, K] bf16, b [N] bf16; f32 accumulation, y bf16 [M, N].
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def linear_relu_squared(x: T.In[T.bf16, ("M", "K")], W: T.In[T.bf16, ("N", "K")], b: T.In[T.bf16, ("N",)],
                        y: T.Out[T.bf16, ("M", "N")]):
    M, K = x.shape
    N = W.shape[0]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(x[rows, ks], W[cols, ks], transpose_rhs=True) + T.cast(b[cols], T.f32)
    r = T.relu(acc)
    y[rows, cols] = T.cast(r * r, T.bf16)


KERNEL = linear_relu_squared


def inputs(shape, rng):
    M, K, N = shape["M"], shape["K"], shape["N"]
    return dict(x=rng.standard_normal((M, K)).astype(np.float32),
                W=(rng.standard_normal((N, K)) / np.sqrt(K)).astype(np.float32),
                b=(0.1 * rng.standard_normal(N)).astype(np.float32))


def reference(x, W, b):
    acc = x.astype(np.float64) @ W.astype(np.float64).T + b.astype(np.float64)
    return {"y": np.maximum(acc, 0.0) ** 2}


def peer(x, W, b):
    import torch
    import torch.nn.functional as F
    return {"y": torch.relu(F.linear(x, W, b)).square()}


TEST_SHAPES = [dict(M=1, K=1, N=1), dict(M=5, K=17, N=13), dict(M=33, K=64, N=47)]
BENCH_SHAPE = dict(M=8192, K=4096, N=16384)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)     # bf16 output (f32 -> bf16 truncates under TRITON_INTERPRET=1)
PEER = "torch.compile"


def OPS(shape):
    M, K, N = shape["M"], shape["K"], shape["N"]
    return 2 * M * N * K, 2 * (M * K + N * K + N + M * N)
