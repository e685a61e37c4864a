"""Pixel shuffle (depth to space, r = 2): out[n, c, h*2+i, w*2+j] = x[n, c*4 + i*2 + j, h, w], NCHW f16. N16 C64 (out channels) H128 W128. Peer: F.pixel_shuffle (.contiguous())."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def pixel_shuffle(x: T.In[T.f16, ("N", "C4", "H", "W")], out: T.Out[T.f16, ("N", "C", "OH", "OW")]):
    N, C4, H, W = x.shape
    C = out.shape[1]
    ns, cs, hs, ws = T.domain(0, N), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    c, h, w = T.indices(cs), T.indices(hs), T.indices(ws)
    for i in range(2):
        for j in range(2):
            out[ns, cs, 2 * h + i, 2 * w + j] = x[ns, 4 * c + (2 * i + j), hs, ws]


KERNEL = pixel_shuffle


def inputs(shape, rng):
    assert shape["C4"] == 4 * shape["C"] and shape["OH"] == 2 * shape["H"] and shape["OW"] == 2 * shape["W"]
    return {"x": rng.standard_normal((shape["N"], shape["C4"], shape["H"], shape["W"])).astype(np.float16)}


def reference(x):
    N, C4, H, W = x.shape
    C = C4 // 4
    return {"out": x.reshape(N, C, 2, 2, H, W).transpose(0, 1, 4, 2, 5, 3).reshape(N, C, 2 * H, 2 * W)}


def peer(x):
    import torch.nn.functional as F
    return {"out": F.pixel_shuffle(x, 2).contiguous()}


def _s(N, C, H, W):
    return dict(N=N, C=C, C4=4 * C, H=H, W=W, OH=2 * H, OW=2 * W)


TEST_SHAPES = [_s(1, 1, 1, 1), _s(2, 3, 5, 7), _s(3, 5, 17, 13)]
BENCH_SHAPE = _s(16, 64, 128, 128)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "F.pixel_shuffle(...).contiguous()"
