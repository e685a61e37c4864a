"""axial_rope_2d: 2-D rotary embedding for vision tokens. x [B, H, W, NH, D] (bf16): the first D/2 channels
rotate by angles from the row index h, the last D/2 by the column index w; within each half of E = D/2
channels, rotate-half with Q = E/2 frequencies freq_i = theta^(-2i/E), theta = 10000:
    (a1, a2) = (half[0:Q], half[Q:E]),  out = (a1 cos - a2 sin, a2 cos + a1 sin),  angle_i = pos * freq_i
out bf16, same shape (D = 64 at the bench shape).
"""
import math

import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def axial_rope_2d(x: T.In[T.bf16, ("B", "H", "W", "NH", "D")], out: T.Out[T.bf16, ("B", "H", "W", "NH", "D")]):
    B, H, W, NH, D = x.shape
    Q = D // 4                                   # rotation pairs per half
    dims = T.domain(0, D)
    i = T.cast(T.indices(T.domain(0, Q)), T.f32)
    freq = T.exp(i * (-2.0 * math.log(10000.0)) / T.cast(2 * Q, T.f32))    # theta^(-2i/E)
    for b, hh, ww, n in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, W), T.domain(0, NH)):
        for half, pos in ((0, hh), (1, ww)):     # first half: row angle, second half: column angle
            lo = dims[half * 2 * Q:half * 2 * Q + Q]
            hi = dims[half * 2 * Q + Q:half * 2 * Q + 2 * Q]
            ang = T.cast(pos, T.f32) * freq
            c, s = T.cos(ang), T.sin(ang)
            a1 = T.cast(x[b, hh, ww, n, lo], T.f32)
            a2 = T.cast(x[b, hh, ww, n, hi], T.f32)
            out[b, hh, ww, n, lo] = T.cast(a1 * c - a2 * s, T.bf16)
            out[b, hh, ww, n, hi] = T.cast(a2 * c + a1 * s, T.bf16)


KERNEL = axial_rope_2d


def inputs(shape, rng):
    dims = tuple(shape[s] for s in ("B", "H", "W", "NH", "D"))
    return dict(x=rng.standard_normal(dims).astype(np.float32))


def reference(x):
    x = x.astype(np.float64)
    B, H, W, NH, D = x.shape
    E, Q = D // 2, D // 4
    out = np.empty_like(x)
    for half, (axis_len, bshape) in enumerate(((H, (1, H, 1, 1, Q)), (W, (1, 1, W, 1, Q)))):
        freq = 10000.0 ** (-2.0 * np.arange(Q) / E)
        ang = (np.arange(axis_len)[:, None] * freq[None, :]).reshape(bshape)
        c, s = np.cos(ang), np.sin(ang)
        a1 = x[..., half * E:half * E + Q]
        a2 = x[..., half * E + Q:half * E + E]
        out[..., half * E:half * E + Q] = a1 * c - a2 * s
        out[..., half * E + Q:half * E + E] = a2 * c + a1 * s
    return dict(out=out)


def peer(x):
    import torch
    B, H, W, NH, D = x.shape
    E, Q = D // 2, D // 4
    freq = 10000.0 ** (-2.0 * torch.arange(Q, device=x.device, dtype=torch.float32) / E)
    ah = torch.arange(H, device=x.device, dtype=torch.float32)[:, None] * freq       # [H, Q]
    aw = torch.arange(W, device=x.device, dtype=torch.float32)[:, None] * freq       # [W, Q]
    ch, sh = torch.cat([ah.cos()] * 2, -1)[None, :, None, None], torch.cat([ah.sin()] * 2, -1)[None, :, None, None]
    cw, sw = torch.cat([aw.cos()] * 2, -1)[None, None, :, None], torch.cat([aw.sin()] * 2, -1)[None, None, :, None]

    def rot_half(t):
        t1, t2 = t.chunk(2, dim=-1)
        return torch.cat([-t2, t1], dim=-1)

    xf = x.float()
    xh, xw = xf[..., :E], xf[..., E:]
    y = torch.cat([xh * ch + rot_half(xh) * sh, xw * cw + rot_half(xw) * sw], dim=-1)
    return dict(out=y.to(torch.bfloat16))


TEST_SHAPES = [dict(B=1, H=1, W=1, NH=1, D=4), dict(B=1, H=3, W=5, NH=3, D=8), dict(B=2, H=7, W=5, NH=2, D=64)]
BENCH_SHAPE = dict(B=8, H=32, W=32, NH=16, D=64)
# bf16 output (the Triton interpreter truncates f32 -> bf16)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    n = shape["B"] * shape["H"] * shape["W"] * shape["NH"] * shape["D"]
    return 3 * n, 2 * 2 * n
