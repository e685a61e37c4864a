"""Instance norm (NCHW, per (n, c) plane mean/variance over H*W, eps 1e-5, affine gamma/beta per channel), f16 in and out, f32 statistics. N32 C128 H64 W64. Peer: torch.compile(F.instance_norm)."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def instance_norm(x: T.In[T.f16, ("N", "C", "H", "W")], gamma: T.In[T.f32, ("C",)], beta: T.In[T.f32, ("C",)],
                  y: T.Out[T.f16, ("N", "C", "H", "W")]):
    N, C, H, W = x.shape
    hs, ws = T.domain(0, H), T.domain(0, W)
    hw = T.cast(H * W, T.f32)
    for n, c in T.parallel(T.domain(0, N), T.domain(0, C)):
        plane = T.cast(x[n, c, hs, ws], T.f32)
        mean = T.sum(plane) / hw
        d = plane - mean
        var = T.sum(d * d) / hw
        y[n, c, hs, ws] = T.cast(d * T.rsqrt(var + 1e-5) * gamma[c] + beta[c], T.f16)


KERNEL = instance_norm


def inputs(shape, rng):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    return {"x": (rng.standard_normal((N, C, H, W)) * 2.0 + 0.5).astype(np.float16),
            "gamma": rng.uniform(0.5, 1.5, C).astype(np.float32),
            "beta": rng.standard_normal(C).astype(np.float32)}


def reference(x, gamma, beta):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=(2, 3), keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=(2, 3), keepdims=True)
    return {"y": (x64 - mean) / np.sqrt(var + 1e-5) * gamma[None, :, None, None] + beta[None, :, None, None]}


def peer(x, gamma, beta):
    import torch.nn.functional as F
    return {"y": F.instance_norm(x.float(), weight=gamma, bias=beta, eps=1e-5).half()}


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1), dict(N=2, C=3, H=5, W=7), dict(N=3, C=5, H=17, W=31)]
BENCH_SHAPE = dict(N=32, C=128, H=64, W=64)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile(F.instance_norm)"
