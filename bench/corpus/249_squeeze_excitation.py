"""Squeeze-and-excitation block (EfficientNet / SE-ResNet), NCHW f32: per image n, s[c] = mean over the
pixels of x[n, c]; h = silu(w1 @ s + b1) with w1 [CR, C]; a = sigmoid(w2 @ h + b2) with w2 [C, CR]; out[n,
c, :, :] = x[n, c, :, :] * a[c]. N64 C240 CR10 H28 W28 (EfficientNet-B0's stage 4). Peer: torch.compile
(adaptive_avg_pool2d, two 1x1 convolutions, silu, sigmoid, multiply)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def squeeze_excitation(x: T.In[T.f32, ("N", "C", "H", "W")], w1: T.In[T.f32, ("CR", "C")], b1: T.In[T.f32, ("CR",)],
                       w2: T.In[T.f32, ("C", "CR")], b2: T.In[T.f32, ("C",)],
                       out: T.Out[T.f32, ("N", "C", "H", "W")]):
    N, C, H, W = x.shape
    CR = w1.shape[0]
    chans, reds, hs, ws = T.domain(0, C), T.domain(0, CR), T.domain(0, H), T.domain(0, W)
    for n in T.parallel(T.domain(0, N)):
        s = T.sum(x[n, chans, hs, ws], axis=(1, 2)) / T.cast(H * W, T.f32)
        h = T.matvec(w1[reds, chans], s) + b1[reds]
        h = h * T.sigmoid(h)
        a = T.sigmoid(T.matvec(w2[chans, reds], h) + b2[chans])
        out[n, chans, hs, ws] = x[n, chans, hs, ws] * a


KERNEL = squeeze_excitation


def inputs(shape, rng):
    N, C, CR, H, W = shape["N"], shape["C"], shape["CR"], shape["H"], shape["W"]
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    return dict(x=f(N, C, H, W), w1=(f(CR, C) / np.sqrt(C)).astype(np.float32), b1=f(CR),
                w2=(f(C, CR) / np.sqrt(CR)).astype(np.float32), b2=f(C))


def reference(x, w1, b1, w2, b2):
    s = x.astype(np.float64).mean((2, 3))
    h = s @ w1.T.astype(np.float64) + b1
    h = h / (1.0 + np.exp(-h))
    a = 1.0 / (1.0 + np.exp(-(h @ w2.T.astype(np.float64) + b2)))
    return dict(out=x * a[:, :, None, None])


def peer(x, w1, b1, w2, b2):
    import torch.nn.functional as F
    s = F.adaptive_avg_pool2d(x, 1)
    h = F.silu(F.conv2d(s, w1[:, :, None, None], b1))
    a = F.conv2d(h, w2[:, :, None, None], b2).sigmoid()
    return dict(out=x * a)


def OPS(shape):
    n = shape["N"] * shape["C"] * shape["H"] * shape["W"]
    return 2 * n, 8 * n


TEST_SHAPES = [dict(N=1, C=1, CR=1, H=1, W=1), dict(N=2, C=7, CR=3, H=5, W=3), dict(N=3, C=13, CR=2, H=11, W=17)]
BENCH_SHAPE = dict(N=64, C=240, CR=10, H=28, W=28)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
