"""SwiGLU MLP up-projection: H = silu(X·W1) ⊙ (X·W3), X [M,K] bf16, W1/W3 [K,N] bf16, H [M,N]
bf16 (f32 accumulation). Realistic size M=8192, N=14336, K=4096. Peer: torch.compile."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def swiglu_up(x: T.In[T.bf16, ("M", "K")], w1: T.In[T.bf16, ("K", "N")],
              w3: T.In[T.bf16, ("K", "N")], h: T.Out[T.bf16, ("M", "N")]):
    M, K = x.shape
    N = w1.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    xt = x[rows, ks]
    gate = T.matmul(xt, w1[ks, cols], acc_dtype=T.f32)
    up = T.matmul(xt, w3[ks, cols], acc_dtype=T.f32)
    h[rows, cols] = T.cast(gate * T.sigmoid(gate) * up, T.bf16)


KERNEL = swiglu_up


def _bf16(a):
    """Round float32 to bfloat16 (nearest even), returned as float64."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(
        x=rng.standard_normal((M, K)).astype(np.float32),
        w1=(rng.standard_normal((K, N)) / math.sqrt(K)).astype(np.float32),
        w3=(rng.standard_normal((K, N)) / math.sqrt(K)).astype(np.float32),
    )


def reference(x, w1, w3):
    x, w1, w3 = _bf16(x), _bf16(w1), _bf16(w3)
    g = x @ w1
    u = x @ w3
    return dict(h=g / (1.0 + np.exp(-g)) * u)


def peer(x, w1, w3):
    import torch
    return dict(h=torch.nn.functional.silu(x @ w1) * (x @ w3))


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=17, K=5), dict(M=17, N=67, K=31),
               dict(M=29, N=131, K=97)]
BENCH_SHAPE = dict(M=8192, N=14336, K=4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 4 * M * N * K, 2 * (M * K + 2 * K * N + M * N)
