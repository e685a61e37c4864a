"""SwiGLU MLP up-projection: H = silu(X·W1) * (X·W3), X [M,K] bf16, W1/W3 [K,N] bf16, H bf16.
8192x14336x4096 (MxNxK). Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def swiglu_up(x: T.In[T.bf16, ("M", "K")],
              w1: T.In[T.bf16, ("K", "N")],
              w3: T.In[T.bf16, ("K", "N")],
              h: T.Out[T.bf16, ("M", "N")]):
    xt = x[:, :]
    gate = T.matmul(xt, w1[:, :], acc_dtype=T.f32)
    up = T.matmul(xt, w3[:, :], acc_dtype=T.f32)
    h[:, :] = T.cast(gate * T.sigmoid(gate) * up, T.bf16)


KERNEL = swiglu_up
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return {
        "x": rng.standard_normal((M, K)).astype(np.float32),
        "w1": (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float32),
        "w3": (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float32),
    }


def reference(x, w1, w3):
    x = x.astype(np.float64)
    g = x @ w1.astype(np.float64)
    u = x @ w3.astype(np.float64)
    return {"h": g / (1.0 + np.exp(-g)) * u}


def peer(x, w1, w3):
    import torch.nn.functional as F
    return {"h": F.silu(x @ w1) * (x @ w3)}


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=5, N=67, K=131), dict(M=33, N=129, K=61),
               dict(M=70, N=97, K=200)]
BENCH_SHAPE = dict(M=8192, N=14336, K=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 4 * M * N * K, 2 * (M * K + 2 * K * N + M * N)
