"""Depthwise 3x3 convolution, stride 1, zero padding 1, NCHW: out[b, c, i, j] = bias[c] +
sum_{dh, dw in 0..2} w[c, dh, dw] * x[b, c, i + dh - 1, j + dw - 1] (zero outside the image), for
x [B, C, H, W] f16, w [C, 3, 3] f16, bias [C] f32; f32 accumulation, out f16 [B, C, H, W].
Second spelling: one (b, c) plane per member, each tap a masked [H, W] window read through two index
tensors (an outer product of shifted row and column coordinates).
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def depthwise_conv2d_b(x: T.In[T.f16, ("B", "C", "H", "W")], w: T.In[T.f16, ("C", 3, 3)],
                       bias: T.In[T.f32, ("C",)], out: T.Out[T.f16, ("B", "C", "H", "W")]):
    B, C, H, W = x.shape
    hs, ws = T.domain(0, H), T.domain(0, W)
    i, j = T.indices(hs), T.indices(ws)
    for b, c in T.parallel(T.domain(0, B), T.domain(0, C)):
        acc = T.full((hs, ws), 0.0, T.f32) + bias[c]
        for dh in range(3):
            ih = i + (dh - 1)
            ok_h = T.broadcast((ih >= 0) & (ih < H), over=(hs, ws), dims=[0])
            for dw in range(3):
                iw = j + (dw - 1)
                ok = ok_h & T.broadcast((iw >= 0) & (iw < W), over=(hs, ws), dims=[1])
                xs = T.load(x, (b, c, ih, iw), valid=ok, fill=0.0)          # over (hs, ws)
                acc = acc + T.cast(xs, T.f32) * T.cast(w[c, dh, dw], T.f32)
        out[b, c, hs, ws] = T.cast(acc, T.f16)


KERNEL = depthwise_conv2d_b


def inputs(shape, rng):
    B, C, H, W = shape["B"], shape["C"], shape["H"], shape["W"]
    return dict(x=rng.standard_normal((B, C, H, W)).astype(np.float16),
                w=rng.standard_normal((C, 3, 3)).astype(np.float16),
                bias=rng.standard_normal(C).astype(np.float32))


def reference(x, w, bias):
    B, C, H, W = x.shape
    xp = np.zeros((B, C, H + 2, W + 2))
    xp[:, :, 1:H + 1, 1:W + 1] = x.astype(np.float64)
    out = np.broadcast_to(bias.astype(np.float64)[None, :, None, None], (B, C, H, W)).copy()
    for dh in range(3):
        for dw in range(3):
            out += w[None, :, dh, dw, None, None].astype(np.float64) * xp[:, :, dh:dh + H, dw:dw + W]
    return {"out": out}


def peer(x, w, bias):
    import torch.nn.functional as F
    C = x.shape[1]
    return {"out": F.conv2d(x, w.unsqueeze(1), bias.to(x.dtype), padding=1, groups=C)}


TEST_SHAPES = [dict(B=1, C=1, H=1, W=1), dict(B=2, C=3, H=5, W=7), dict(B=1, C=5, H=13, W=17)]
BENCH_SHAPE = dict(B=32, C=256, H=56, W=56)
TOLERANCE = dict(rtol=5e-3, atol=5e-3)     # f16 output
PEER = "eager"                              # cuDNN


def OPS(shape):
    B, C, H, W = shape["B"], shape["C"], shape["H"], shape["W"]
    return 2 * 9 * B * C * H * W, 2 * 2 * B * C * H * W + C * (9 * 2 + 4)
