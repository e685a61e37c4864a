"""GELU backward (exact erf form): dx = dy * (Phi(x) + x * phi(x)), x and dy bf16 [M, N], dx bf16. M16384 N8192. Peer: torch.compile of the formula (or torch.ops.aten.gelu_backward)."""
import math

import numpy as np

import tessel
import tessel.language as T

INV_SQRT2 = 1.0 / math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@tessel.kernel
def gelu_backward(x: T.In[T.bf16, ("M", "N")], dy: T.In[T.bf16, ("M", "N")], dx: T.Out[T.bf16, ("M", "N")]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    xf = T.cast(x[rows, cols], T.f32)
    g = T.cast(dy[rows, cols], T.f32)
    cdf = 0.5 * (1.0 + T.erf(xf * INV_SQRT2))
    pdf = T.exp(-0.5 * xf * xf) * INV_SQRT_2PI
    dx[rows, cols] = T.cast(g * (cdf + xf * pdf), T.bf16)


KERNEL = gelu_backward


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return {"x": rng.standard_normal((M, N)).astype(np.float32) * 2.0,
            "dy": rng.standard_normal((M, N)).astype(np.float32)}


def reference(x, dy):
    from math import erf
    x64, g = x.astype(np.float64), dy.astype(np.float64)
    cdf = 0.5 * (1.0 + np.vectorize(erf)(x64 / np.sqrt(2.0))) if x64.size else x64
    pdf = np.exp(-0.5 * x64 * x64) / np.sqrt(2.0 * np.pi)
    return {"dx": g * (cdf + x64 * pdf)}


def peer(x, dy):
    import torch
    return {"dx": torch.ops.aten.gelu_backward(dy, x, approximate="none")}


def OPS(shape):
    n = shape["M"] * shape["N"]
    return 12 * n, 3 * 2 * n


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=16384, N=8192)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.ops.aten.gelu_backward"
