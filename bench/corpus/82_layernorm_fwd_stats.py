"""LayerNorm forward that also saves what backward needs. For every row m of x [M, N] (bf16), with
weight w [N] and bias b [N] (f32) and a runtime eps, in f32:
    mean[m] = sum_n x / N,  var = sum_n (x - mean)^2 / N (biased),  rstd[m] = rsqrt(var + eps)
    y[m, n] = (x - mean) * rstd * w[n] + b[n]      (bf16 out)
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def layernorm_fwd_stats(x: T.In[T.bf16, ("M", "N")], w: T.In[T.f32, ("N",)], b: T.In[T.f32, ("N",)],
                        y: T.Out[T.bf16, ("M", "N")], mean: T.Out[T.f32, ("M",)],
                        rstd: T.Out[T.f32, ("M",)], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    n = T.cast(N, T.f32)
    weight, bias = w[cols], b[cols]
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(x[m, cols], T.f32)
        mu = T.sum(row) / n
        centered = row - mu
        r = T.rsqrt(T.sum(centered * centered) / n + eps)
        mean[m] = mu
        rstd[m] = r
        y[m, cols] = T.cast(centered * r * weight + bias, T.bf16)


KERNEL = layernorm_fwd_stats


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return {"x": (0.5 + 2.0 * rng.standard_normal((M, N))).astype(np.float32),
            "w": (1.0 + 0.3 * rng.standard_normal(N)).astype(np.float32),
            "b": (0.2 * rng.standard_normal(N)).astype(np.float32),
            "eps": 1e-5}


def reference(x, w, b, eps):
    x = x.astype(np.float64)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    r = 1.0 / np.sqrt(var + eps)
    return {"y": (x - mu) * r * w + b, "mean": mu[:, 0], "rstd": r[:, 0]}


def peer(x, w, b, eps):
    import torch
    import torch.nn.functional as F
    xf = x.float()
    var, mu = torch.var_mean(xf, dim=-1, unbiased=False)
    y = F.layer_norm(xf, (x.shape[-1],), w, b, eps).to(torch.bfloat16)
    return {"y": y, "mean": mu, "rstd": torch.rsqrt(var + eps)}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=7, N=1031)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)   # y is bf16 (8 significant bits)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 8 * M * N, 2 * M * N + 8 * N + 2 * M * N + 8 * M
