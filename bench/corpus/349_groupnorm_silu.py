"""GroupNorm followed by SiLU, as the ResNet blocks of a diffusion UNet run it: x f16 [N, C, H, W], G groups
(32) of C/G consecutive channels, gamma/beta f32 [C]; per (n, group) the mean and (biased) variance over the
group's (C/G, H, W) elements, normalize with eps, the per-channel affine, then silu(y) = y * sigmoid(y);
output f16 [N, C, H, W]. N8 C512 H64 W64, eps 1e-5. Peer: torch.compile(group_norm + silu)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def groupnorm_silu(x: T.In[T.f16, ("N", "C", "H", "W")], gamma: T.In[T.f32, ("C",)],
                   beta: T.In[T.f32, ("C",)], y: T.Out[T.f16, ("N", "C", "H", "W")], eps: T.f32,
                   G: T.Constexpr[int] = 32):
    N, C, H, W = x.shape
    CG = C // G
    chans, hs, ws = T.domain(0, C), T.domain(0, H), T.domain(0, W)
    count = T.cast(CG * H * W, T.f32)
    for n, g in T.parallel(T.domain(0, N), T.domain(0, G)):
        cs = chans[g * CG:g * CG + CG]
        v = T.cast(x[n, cs, hs, ws], T.f32)
        mean = T.sum(v) / count
        d = v - mean
        var = T.sum(d * d) / count
        z = d * T.rsqrt(var + eps) * gamma[cs] + beta[cs]
        y[n, cs, hs, ws] = T.cast(z * T.sigmoid(z), T.f16)


KERNEL = groupnorm_silu
CONSTEXPRS = {"G": 32}


def inputs(shape, rng):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    assert C % 32 == 0
    x = rng.standard_normal((N, C, H, W)) * 1.5 + rng.standard_normal((1, C, 1, 1))
    return dict(x=x.astype(np.float16), gamma=(1.0 + 0.3 * rng.standard_normal(C)).astype(np.float32),
                beta=(0.2 * rng.standard_normal(C)).astype(np.float32), eps=1e-5)


def reference(x, gamma, beta, eps):
    N, C, H, W = x.shape
    G = 32
    v = x.astype(np.float64).reshape(N, G, (C // G) * H * W)
    mean = v.mean(axis=2, keepdims=True)
    var = ((v - mean) ** 2).mean(axis=2, keepdims=True)
    z = ((v - mean) / np.sqrt(var + eps)).reshape(N, C, H, W)
    z = z * gamma.astype(np.float64)[None, :, None, None] + beta.astype(np.float64)[None, :, None, None]
    return dict(y=(z / (1.0 + np.exp(-z))).astype(np.float16))


def peer(x, gamma, beta, eps):
    import torch
    z = torch.nn.functional.group_norm(x.float(), 32, gamma, beta, eps)
    return dict(y=torch.nn.functional.silu(z).to(torch.float16))


def OPS(shape):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    e = N * C * H * W
    return 12 * e, 4 * e + 8 * C


TEST_SHAPES = [dict(N=0, C=32, H=3, W=5), dict(N=1, C=32, H=1, W=1), dict(N=2, C=64, H=7, W=11),
               dict(N=3, C=96, H=5, W=13)]
BENCH_SHAPE = dict(N=8, C=512, H=64, W=64)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile"
