"""2x2 max-pool (stride 2, floor mode) with argmax indices on NCHW f16: y[n, c, i, j] is the max of
x[n, c, 2i:2i+2, 2j:2j+2], idx[n, c, i, j] the flat position h * W + w of that max in the (H, W) plane
(int64; the first in row-major order on ties), as F.max_pool2d(x, 2, return_indices=True).
Peer: torch."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def maxpool2x2(x: T.In[T.f16, ("N", "C", "H", "W")],
               y: T.Out[T.f16, ("N", "C", "OH", "OW")],
               idx: T.Out[T.i64, ("N", "C", "OH", "OW")]):
    N, C, H, W = x.shape
    ocols = T.domain(0, y.shape[3])
    ow = T.indices(ocols)
    for n, c, i in T.parallel(T.domain(0, N), T.domain(0, C), T.domain(0, y.shape[2])):
        best = T.full((ocols,), -math.inf, T.f16)
        at = T.full((ocols,), 0, T.i64)
        for dy in range(2):
            for dx in range(2):
                h = 2 * i + dy
                w = 2 * ow + dx
                v = x[n, c, h, w]
                better = v > best
                best = T.where(better, v, best)
                at = T.where(better, T.cast(h * W + w, T.i64), at)
        y[n, c, i, ocols] = best
        idx[n, c, i, ocols] = at


KERNEL = maxpool2x2


def _shape(N, C, H, W):
    return dict(N=N, C=C, H=H, W=W, OH=H // 2, OW=W // 2)


def inputs(shape, rng):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    return {"x": rng.standard_normal((N, C, H, W)).astype(np.float16)}


def reference(x):
    N, C, H, W = x.shape
    OH, OW = H // 2, W // 2
    win = x[:, :, :2 * OH, :2 * OW].reshape(N, C, OH, 2, OW, 2).transpose(0, 1, 2, 4, 3, 5)
    win = win.reshape(N, C, OH, OW, 4)
    k = np.argmax(win, axis=-1)                      # first max in (dy, dx) row-major order
    dy, dx = k // 2, k % 2
    hh = 2 * np.arange(OH)[:, None] + dy
    ww = 2 * np.arange(OW)[None, :] + dx
    return {"y": win.max(axis=-1).astype(np.float64), "idx": (hh * W + ww).astype(np.int64)}


def peer(x):
    import torch.nn.functional as F
    y, i = F.max_pool2d(x, 2, return_indices=True)
    return {"y": y, "idx": i}


TEST_SHAPES = [_shape(1, 1, 2, 2), _shape(2, 3, 7, 13), _shape(1, 5, 33, 31), _shape(3, 2, 2, 65)]
BENCH_SHAPE = _shape(32, 256, 112, 112)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch"


def OPS(shape):
    n = shape["N"] * shape["C"] * shape["OH"] * shape["OW"]
    return 3 * n, 2 * 4 * n + 2 * n + 8 * n
