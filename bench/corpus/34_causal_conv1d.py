"""Depthwise causal conv1d, width 4, with SiLU: x f16 [B, C, L], weight [C, 4], bias [C];
out[b, c, t] = silu(bias[c] + sum_k weight[c, k] * x[b, c, t - 3 + k]) with x = 0 before t = 0
(as causal_conv1d_fn(x, weight, bias, activation="silu")). f32 accumulation, f16 output.
Peer: causal-conv1d reference / torch conv1d."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def causal_conv1d(x: T.In[T.f16, ("B", "C", "L")],
                  weight: T.In[T.f16, ("C", "KW")],
                  bias: T.In[T.f16, ("C",)],
                  out: T.Out[T.f16, ("B", "C", "L")],
                  WIDTH: T.Constexpr[int] = 4):
    B, C, L = x.shape
    times = T.domain(0, L)
    t = T.indices(times)
    for b, c in T.parallel(T.domain(0, B), T.domain(0, C)):
        acc = T.full((times,), 0.0, T.f32) + T.cast(bias[c], T.f32)
        for k in range(WIDTH):
            lag = WIDTH - 1 - k
            xs = T.load(x, (b, c, t - lag), valid=t >= lag, fill=0.0)
            acc = acc + T.cast(weight[c, k], T.f32) * T.cast(xs, T.f32)
        out[b, c, times] = T.cast(acc * T.sigmoid(acc), T.f16)


KERNEL = causal_conv1d
CONSTEXPRS = {"WIDTH": 4}


def inputs(shape, rng):
    B, C, L, KW = shape["B"], shape["C"], shape["L"], shape["KW"]
    return {
        "x": rng.standard_normal((B, C, L)).astype(np.float16),
        "weight": (0.5 * rng.standard_normal((C, KW))).astype(np.float16),
        "bias": (0.5 * rng.standard_normal(C)).astype(np.float16),
    }


def reference(x, weight, bias):
    B, C, L = x.shape
    W = weight.shape[1]
    xp = np.concatenate([np.zeros((B, C, W - 1)), x.astype(np.float64)], axis=2)
    w = weight.astype(np.float64)
    acc = np.broadcast_to(bias.astype(np.float64)[None, :, None], (B, C, L)).copy()
    for k in range(W):
        acc += w[None, :, k, None] * xp[:, :, k:k + L]
    return {"out": acc / (1.0 + np.exp(-acc))}


def peer(x, weight, bias):
    import torch.nn.functional as F
    C, W = weight.shape
    L = x.shape[-1]
    y = F.conv1d(x, weight.unsqueeze(1), bias, padding=W - 1, groups=C)[..., :L]
    return {"out": F.silu(y)}


TEST_SHAPES = [dict(B=1, C=1, L=1, KW=4), dict(B=2, C=3, L=127, KW=4), dict(B=3, C=17, L=257, KW=4),
               dict(B=1, C=5, L=2, KW=4)]
BENCH_SHAPE = dict(B=8, C=4096, L=2048, KW=4)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "causal-conv1d reference / torch conv1d"


def OPS(shape):
    n = shape["B"] * shape["C"] * shape["L"]
    return 12 * n, 2 * n * 2 + 10 * shape["C"]
