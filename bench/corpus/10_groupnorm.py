"""GroupNorm on NCHW (N=16, C=512, 64x64, 32 groups), f16. Each (sample, group) of C/G channels is
normalized by its mean and biased variance over (C/G, H, W), then scaled and shifted per channel.
Statistics in f32. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def groupnorm(x: T.In[T.f16, ("N", "C", "H", "W")],
              weight: T.In[T.f16, ("C",)],
              bias: T.In[T.f16, ("C",)],
              y: T.Out[T.f16, ("N", "C", "H", "W")],
              eps: T.f32,
              G: T.Constexpr[int] = 32):
    N, C, H, W = x.shape
    cpg = C // G
    chans = T.domain(0, C)
    hs = T.domain(0, H)
    ws = T.domain(0, W)
    for n, g in T.parallel(T.domain(0, N), T.domain(0, G)):
        cs = chans[g * cpg:(g + 1) * cpg]
        t = T.cast(x[n, cs, hs, ws], T.f32)
        count = T.cast(cpg * H * W, T.f32)
        mean = T.sum(t) / count
        d = t - mean
        var = T.sum(d * d) / count
        rstd = T.rsqrt(var + eps)
        w = T.broadcast(T.cast(weight[cs], T.f32), over=(cs, hs, ws), dims=[0])
        b = T.broadcast(T.cast(bias[cs], T.f32), over=(cs, hs, ws), dims=[0])
        y[n, cs, hs, ws] = T.cast(d * rstd * w + b, T.f16)


KERNEL = groupnorm
CONSTEXPRS = {"G": 32}


def inputs(shape, rng):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    return {
        "x": (rng.standard_normal((N, C, H, W)) * 2.0 + 0.5).astype(np.float16),
        "weight": (1.0 + 0.5 * rng.standard_normal(C)).astype(np.float16),
        "bias": (0.5 * rng.standard_normal(C)).astype(np.float16),
        "eps": 1e-5,
    }


def reference(x, weight, bias, eps):
    G = CONSTEXPRS["G"]
    N, C, H, W = x.shape
    xg = x.astype(np.float64).reshape(N, G, -1)
    mean = xg.mean(axis=2, keepdims=True)
    var = xg.var(axis=2, keepdims=True)
    yn = ((xg - mean) / np.sqrt(var + eps)).reshape(N, C, H, W)
    out = yn * weight.astype(np.float64)[None, :, None, None] + bias.astype(np.float64)[None, :, None, None]
    return {"y": out}


def peer(x, weight, bias, eps):
    import torch.nn.functional as F
    return {"y": F.group_norm(x, CONSTEXPRS["G"], weight, bias, eps)}


TEST_SHAPES = [dict(N=1, C=32, H=1, W=1), dict(N=2, C=64, H=5, W=7), dict(N=3, C=96, H=7, W=13),
               dict(N=1, C=32, H=17, W=31)]
BENCH_SHAPE = dict(N=16, C=512, H=64, W=64)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    n = shape["N"] * shape["C"] * shape["H"] * shape["W"]
    return 8 * n, 2 * n * 2 + 4 * shape["C"]
