"""2D max pooling, 3x3 window, stride 2, padding 1 (the ResNet stem's pool) on NCHW f16: out[n, c, i, j] =
max over kh, kw < 3 of x[n, c, 2i - 1 + kh, 2j - 1 + kw], positions outside the image ignored (padding is
-inf, as torch pads); NaN propagates. x f16 [N, C, H, W], out f16 [N, C, OH, OW] with OH = (H - 1) // 2 + 1,
OW = (W - 1) // 2 + 1. N32 C64 H112 W112. Peer: torch.compile(F.max_pool2d(x, 3, 2, 1))."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def maxpool3x3s2(x: T.In[T.f16, ("N", "C", "H", "W")], out: T.Out[T.f16, ("N", "C", "OH", "OW")]):
    N, C, H, W = x.shape
    OH, OW = out.shape[2], out.shape[3]
    ocols = T.domain(0, OW)
    for n, c, i in T.parallel(T.domain(0, N), T.domain(0, C), T.domain(0, OH)):
        best = T.full((ocols,), -math.inf, T.f16)
        for kh in range(3):
            h = 2 * i - 1 + kh
            for kw in range(3):
                w = 2 * T.indices(ocols) - 1 + kw
                ok = (w >= 0) & (w < W) & (h >= 0) & (h < H)
                best = T.maximum(best, T.load(x, (n, c, h, w), valid=ok, fill=-math.inf))
        out[n, c, i, ocols] = best


KERNEL = maxpool3x3s2


def inputs(shape, rng):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    assert shape["OH"] == (H - 1) // 2 + 1 and shape["OW"] == (W - 1) // 2 + 1
    return dict(x=rng.standard_normal((N, C, H, W)).astype(np.float16))


def reference(x):
    N, C, H, W = x.shape
    OH, OW = (H - 1) // 2 + 1, (W - 1) // 2 + 1
    xp = np.full((N, C, H + 3, W + 3), -np.inf, dtype=np.float32)
    xp[:, :, 1:H + 1, 1:W + 1] = x
    out = np.full((N, C, OH, OW), -np.inf, dtype=np.float32)
    for kh in range(3):
        for kw in range(3):
            out = np.maximum(out, xp[:, :, kh:kh + 2 * OH:2, kw:kw + 2 * OW:2])
    return dict(out=out.astype(np.float16))


def peer(x):
    import torch.nn.functional as F
    return dict(out=F.max_pool2d(x, 3, 2, 1))


def OPS(shape):
    N, C, OH, OW = shape["N"], shape["C"], shape["OH"], shape["OW"]
    return 9 * N * C * OH * OW, 2 * (N * C * shape["H"] * shape["W"] + N * C * OH * OW)


TEST_SHAPES = [dict(N=0, C=3, H=5, W=5, OH=3, OW=3), dict(N=1, C=1, H=1, W=1, OH=1, OW=1),
               dict(N=2, C=3, H=7, W=13, OH=4, OW=7), dict(N=1, C=5, H=37, W=61, OH=19, OW=31),
               dict(N=3, C=2, H=2, W=131, OH=1, OW=66)]
BENCH_SHAPE = dict(N=32, C=64, H=112, W=112, OH=56, OW=56)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"
