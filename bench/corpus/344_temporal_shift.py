"""Temporal shift module (TSM, zero-cost temporal modelling in video networks): x f16 [N, T, C, H, W] video
features; the first C/8 channels (C // 8) take frame t+1's values (zero at the last frame), the next C/8
take frame t-1's (zero at the first frame), the rest are unchanged; the output has the same shape.
N8 T8 C256 H56 W56. Peer: torch.compile of slicing + cat."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def temporal_shift(x: T.In[T.f16, ("N", "T", "C", "H", "W")], y: T.Out[T.f16, ("N", "T", "C", "H", "W")]):
    N, NT, C, H, W = x.shape
    ns, ts, chans, hs, ws = T.domain(0, N), T.domain(0, NT), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    fold = C // 8
    t = T.indices(ts)
    left, right, rest = chans[0:fold], chans[fold:2 * fold], chans[2 * fold:C]
    y[ns, ts, left, hs, ws] = T.load(x, (ns, t + 1, left, hs, ws), valid=t + 1 < NT, fill=0.0)
    y[ns, ts, right, hs, ws] = T.load(x, (ns, t - 1, right, hs, ws), valid=t >= 1, fill=0.0)
    y[ns, ts, rest, hs, ws] = x[ns, ts, rest, hs, ws]


KERNEL = temporal_shift


def inputs(shape, rng):
    N, NT, C, H, W = (shape[s] for s in ("N", "T", "C", "H", "W"))
    return dict(x=rng.standard_normal((N, NT, C, H, W)).astype(np.float16))


def reference(x):
    C = x.shape[2]
    f = C // 8
    y = np.zeros_like(x)
    y[:, :-1, :f] = x[:, 1:, :f]
    y[:, 1:, f:2 * f] = x[:, :-1, f:2 * f]
    y[:, :, 2 * f:] = x[:, :, 2 * f:]
    return dict(y=y)


def peer(x):
    import torch
    f = x.shape[2] // 8
    zero = torch.zeros_like(x[:, :1, :f])
    left = torch.cat([x[:, 1:, :f], zero], dim=1)
    right = torch.cat([zero, x[:, :-1, f:2 * f]], dim=1)
    return dict(y=torch.cat([left, right, x[:, :, 2 * f:]], dim=2))


def OPS(shape):
    n = 1
    for s in ("N", "T", "C", "H", "W"):
        n *= shape[s]
    return 0, 4 * n


TEST_SHAPES = [dict(N=1, T=1, C=1, H=1, W=1), dict(N=2, T=3, C=8, H=5, W=3), dict(N=1, T=5, C=17, H=3, W=7),
               dict(N=2, T=4, C=24, H=2, W=67)]
BENCH_SHAPE = dict(N=8, T=8, C=256, H=56, W=56)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"
