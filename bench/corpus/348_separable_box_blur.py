"""Separable box blur (a mean filter, done as a horizontal then a vertical running window): images f32
[B, C, H, W], radius R (a constexpr, 7): each output pixel is the mean of the (2R+1) x (2R+1) window around
it, counting only the pixels inside the image (as avg_pool2d with count_include_pad=False, stride 1,
padding R). B16 C3 H1024 W1024. Peer: torch.compile (avg_pool2d)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def box_blur(img: T.In[T.f32, ("B", "C", "H", "W")], out: T.Out[T.f32, ("B", "C", "H", "W")],
             R: T.Constexpr[int] = 7):
    B, C, H, W = img.shape
    bs, cs, rows, cols = T.domain(0, B), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    j = T.indices(cols)
    hsum = T.buffer(over=(bs, cs, rows, cols), dtype=T.f32, init=None)
    for b, c, i in T.parallel(bs, cs, rows):                     # pass 1: horizontal window sums
        acc = T.zeros(cols)
        for dj in range(-R, R + 1):
            acc = acc + T.load(img, (b, c, i, j + dj), valid=(j + dj >= 0) & (j + dj < W), fill=0.0)
        hsum[b, c, i, cols] = acc
    ncols = T.cast(T.minimum(j + R, W - 1) - T.maximum(j - R, 0) + 1, T.f32)
    for b, c, i in T.parallel(bs, cs, rows):                     # pass 2: vertical sums of those
        lo, hi = T.maximum(i - R, 0), T.minimum(i + R + 1, H)
        total = T.sum(hsum[b, c, rows[lo:hi], cols], axis=0)
        out[b, c, i, cols] = total / (T.cast(hi - lo, T.f32) * ncols)


KERNEL = box_blur
CONSTEXPRS = dict(R=7)


def inputs(shape, rng):
    B, C, H, W = (shape[s] for s in ("B", "C", "H", "W"))
    return dict(img=rng.standard_normal((B, C, H, W)).astype(np.float32))


def reference(img):
    R = CONSTEXPRS["R"]
    B, C, H, W = img.shape
    x = img.astype(np.float64)
    pad = np.zeros((B, C, H + 2 * R + 1, W + 2 * R + 1))
    pad[:, :, R + 1:R + 1 + H, R + 1:R + 1 + W] = x
    sat = pad.cumsum(axis=2).cumsum(axis=3)                 # summed-area table, row/col 0 zero
    i0, j0 = np.arange(H), np.arange(W)
    s = (sat[:, :, i0 + 2 * R + 1][:, :, :, j0 + 2 * R + 1] - sat[:, :, i0][:, :, :, j0 + 2 * R + 1]
         - sat[:, :, i0 + 2 * R + 1][:, :, :, j0] + sat[:, :, i0][:, :, :, j0])
    nr = np.minimum(i0 + R, H - 1) - np.maximum(i0 - R, 0) + 1
    nc = np.minimum(j0 + R, W - 1) - np.maximum(j0 - R, 0) + 1
    return dict(out=s / (nr[:, None] * nc[None, :]))


def peer(img, R=7):
    import torch
    return dict(out=torch.nn.functional.avg_pool2d(img, 2 * R + 1, stride=1, padding=R,
                                                   count_include_pad=False))


def OPS(shape):
    n = shape["B"] * shape["C"] * shape["H"] * shape["W"]
    return 2 * (2 * CONSTEXPRS["R"] + 1) * n, 8 * n


TEST_SHAPES = [dict(B=1, C=1, H=1, W=1), dict(B=1, C=3, H=5, W=17), dict(B=2, C=1, H=23, W=37),
               dict(B=1, C=1, H=7, W=131)]
BENCH_SHAPE = dict(B=16, C=3, H=1024, W=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
