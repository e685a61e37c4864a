"""GroupNorm on channels-last data: x [N, H, W, C] bf16, G groups of C/G consecutive channels,
statistics (mean, biased variance) over (H, W, the group's channels), eps 1e-5, affine gamma/beta [C]
f32, out bf16 in the same layout. N=16 H=W=64 C=512 G=32. Peer: torch.compile (F.group_norm on the
permuted tensor)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def groupnorm_nhwc(x: T.In[T.bf16, ("N", "H", "W", "C")], gamma: T.In[T.f32, ("C",)],
                   beta: T.In[T.f32, ("C",)], out: T.Out[T.bf16, ("N", "H", "W", "C")],
                   G: T.i32, eps: T.f32):
    N, H, W, C = x.shape
    hs, ws, chans = T.domain(0, H), T.domain(0, W), T.domain(0, C)
    CG = C // T.cast(G, T.index)                      # channels per group
    count = T.cast(H * W * CG, T.f32)
    for n, g in T.parallel(T.domain(0, N), T.domain(0, G)):
        mine = chans[g * CG:g * CG + CG]
        v = T.cast(x[n, hs, ws, mine], T.f32)         # [H, W, CG]
        mean = T.sum(v) / count
        d = v - mean
        rstd = T.rsqrt(T.sum(d * d) / count + eps)
        out[n, hs, ws, mine] = T.cast(d * rstd * gamma[mine] + beta[mine], T.bf16)


KERNEL = groupnorm_nhwc
CONSTEXPRS = {}


def inputs(shape, rng):
    N, H, W, C = (shape[s] for s in ("N", "H", "W", "C"))
    return dict(x=(rng.standard_normal((N, H, W, C)) * 2.0 + 0.5).astype(np.float32),
                gamma=(1.0 + 0.1 * rng.standard_normal(C)).astype(np.float32),
                beta=(0.1 * rng.standard_normal(C)).astype(np.float32),
                G=math.gcd(C, 32), eps=1e-5)


def reference(x, gamma, beta, G, eps):
    N, H, W, C = x.shape
    v = np.asarray(x, np.float64).reshape(N, H, W, G, C // G)
    mean = v.mean(axis=(1, 2, 4), keepdims=True)
    var = ((v - mean) ** 2).mean(axis=(1, 2, 4), keepdims=True)
    y = ((v - mean) / np.sqrt(var + eps)).reshape(N, H, W, C)
    return dict(out=y * gamma.astype(np.float64) + beta.astype(np.float64))


def peer(x, gamma, beta, G, eps):
    import torch.nn.functional as F
    y = F.group_norm(x.permute(0, 3, 1, 2).float(), G, gamma, beta, eps)
    return dict(out=y.permute(0, 2, 3, 1).to(x.dtype).contiguous())


TEST_SHAPES = [dict(N=1, H=1, W=1, C=1), dict(N=2, H=3, W=5, C=12), dict(N=3, H=7, W=11, C=40),
               dict(N=1, H=13, W=9, C=96)]
BENCH_SHAPE = dict(N=16, H=64, W=64, C=512)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    N, H, W, C = (shape[s] for s in ("N", "H", "W", "C"))
    return 8 * N * H * W * C, 2 * 2 * N * H * W * C + 8 * C
