"""Down projection for a small batch: Y = X @ W with X [M, K] bf16, W [K, N] bf16, Y [M, N] bf16.
M=64 K=28672 N=8192 (an MLP's down projection at decode-ish batch). Peer: torch.compile (torch.mm)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def down_proj_small_batch(x: T.In[T.bf16, ("M", "K")], w: T.In[T.bf16, ("K", "N")],
                          y: T.Out[T.bf16, ("M", "N")]):
    M, K = x.shape
    N = w.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    y[rows, cols] = T.cast(T.matmul(x[rows, ks], w[ks, cols]), T.bf16)


KERNEL = down_proj_small_batch
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(x=rng.standard_normal((M, K), dtype=np.float32),
                w=rng.standard_normal((K, N), dtype=np.float32) / np.float32(math.sqrt(K)))


def reference(x, w):
    return dict(y=np.asarray(x, np.float64) @ np.asarray(w, np.float64))


def peer(x, w):
    return dict(y=x @ w)


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=19, K=257), dict(M=17, N=67, K=1031), dict(M=64, N=33, K=2053)]
BENCH_SHAPE = dict(M=64, N=8192, K=28672)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, 2 * (M * K + K * N + M * N)
