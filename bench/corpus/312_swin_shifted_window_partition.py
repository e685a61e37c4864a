"""Swin Transformer's shifted-window partition (the cyclic shift torch.roll(x, (-s, -s), dims=(1, 2))
followed by window_partition, as every shifted block of Swin / Swin-V2 / Video-Swin runs it before window
attention): x bf16 [B, H, W, C] (channels last, H and W multiples of the window WS = 7, shift s = 3), and
out[(b * H/WS + i) * W/WS + j, p * WS + q, c] = x[b, (i * WS + p + s) % H, (j * WS + q + s) % W, c], bf16
[B * H/WS * W/WS, WS * WS, C]. B64 H56 W56 C96 (Swin-T's first stage). Peer: torch.compile of torch.roll +
view / permute / contiguous."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def swin_shifted_window_partition(x: T.In[T.bf16, ("B", "H", "W", "C")], out: T.Out[T.bf16, ("NWIN", "L", "C")],
                                  WS: T.Constexpr[int] = 7, SHIFT: T.Constexpr[int] = 3):
    B, H, W, C = x.shape
    NH, NW = H // WS, W // WS
    toks, chans = T.domain(0, WS * WS), T.domain(0, C)
    t = T.indices(toks)
    for b, i, j in T.parallel(T.domain(0, B), T.domain(0, NH), T.domain(0, NW)):
        r = (i * WS + t // WS + SHIFT) % H
        c = (j * WS + t % WS + SHIFT) % W
        out[(b * NH + i) * NW + j, toks, chans] = x[b, r, c, chans]


KERNEL = swin_shifted_window_partition
WS_, SHIFT_ = 7, 3


def inputs(shape, rng):
    B, H, W, C = shape["B"], shape["H"], shape["W"], shape["C"]
    assert H % WS_ == 0 and W % WS_ == 0 and shape["L"] == WS_ * WS_ and shape["NWIN"] == B * (H // WS_) * (W // WS_)
    return dict(x=rng.standard_normal((B, H, W, C)).astype(np.float32))


def reference(x):
    B, H, W, C = x.shape
    r = np.roll(x, (-SHIFT_, -SHIFT_), axis=(1, 2))
    w = r.reshape(B, H // WS_, WS_, W // WS_, WS_, C).transpose(0, 1, 3, 2, 4, 5)
    return dict(out=w.reshape(-1, WS_ * WS_, C))


def peer(x):
    import torch
    B, H, W, C = x.shape
    r = torch.roll(x, (-SHIFT_, -SHIFT_), dims=(1, 2))
    w = r.view(B, H // WS_, WS_, W // WS_, WS_, C).permute(0, 1, 3, 2, 4, 5).contiguous()
    return dict(out=w.view(-1, WS_ * WS_, C))


def OPS(shape):
    n = shape["B"] * shape["H"] * shape["W"] * shape["C"]
    return 0, 4 * n


TEST_SHAPES = [dict(B=1, H=7, W=7, C=1, NWIN=1, L=49), dict(B=1, H=14, W=7, C=3, NWIN=2, L=49),
               dict(B=2, H=21, W=14, C=37, NWIN=12, L=49)]
BENCH_SHAPE = dict(B=64, H=56, W=56, C=96, NWIN=4096, L=49)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"
