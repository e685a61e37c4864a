"""One GEMM, two outputs: pre = A @ W + bias (stored, bf16) and act = gelu(pre) (erf form, stored,
bf16); A [M, K], W [K, N] bf16, bias [N] f32. M=N=K=4096. Peer: torch.compile (addmm + gelu)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gemm_bias_two_outputs(a: T.In[T.bf16, ("M", "K")], w: T.In[T.bf16, ("K", "N")],
                          bias: T.In[T.f32, ("N",)],
                          pre: T.Out[T.bf16, ("M", "N")], act: T.Out[T.bf16, ("M", "N")]):
    M, K = a.shape
    N = w.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(a[rows, ks], w[ks, cols], init=bias[cols])     # f32 [M, N]
    pre[rows, cols] = T.cast(acc, T.bf16)
    act[rows, cols] = T.cast(T.gelu(acc), T.bf16)


KERNEL = gemm_bias_two_outputs
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(a=rng.standard_normal((M, K), dtype=np.float32),
                w=rng.standard_normal((K, N), dtype=np.float32) / np.float32(math.sqrt(K)),
                bias=rng.standard_normal(N).astype(np.float32))


def reference(a, w, bias):
    from math import erf
    pre = np.asarray(a, np.float64) @ np.asarray(w, np.float64) + np.asarray(bias, np.float64)
    act = 0.5 * pre * (1.0 + np.vectorize(erf)(pre / math.sqrt(2.0)))
    return dict(pre=pre, act=act)


def peer(a, w, bias):
    import torch
    pre = (a @ w).float() + bias
    return dict(pre=pre.to(a.dtype), act=torch.nn.functional.gelu(pre).to(a.dtype))


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=17, K=29), dict(M=67, N=131, K=97), dict(M=130, N=65, K=257)]
BENCH_SHAPE = dict(M=4096, N=4096, K=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, 2 * (M * K + K * N + 2 * M * N) + 4 * N
