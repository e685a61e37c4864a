"""2x bilinear upsampling of an NHWC f16 image (align_corners=False, half-pixel centers, edge clamped):
x [N, H, W, C] -> y [N, 2H, 2W, C]. Bench N8 H128 W128 C64. Peer: F.interpolate(mode="bilinear",
align_corners=False) on the NCHW permutation, permuted back."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def bilinear_resize(x: T.In[T.f16, ("N", "H", "W", "C")],
                    y: T.Out[T.f16, ("N", "OH", "OW", "C")]):   # OH = 2H, OW = 2W (not declarable)
    N, H, W, C = x.shape
    OH, OW = y.shape[1], y.shape[2]
    chans = T.domain(0, C)
    ows = T.domain(0, OW)
    sh = T.cast(H, T.f32) / T.cast(OH, T.f32)                   # 0.5
    sw = T.cast(W, T.f32) / T.cast(OW, T.f32)
    for n, oy in T.parallel(T.domain(0, N), T.domain(0, OH)):
        # source row: half-pixel centers, negative clamped to 0 (torch's align_corners=False)
        fy = T.maximum((T.cast(oy, T.f32) + 0.5) * sh - 0.5, 0.0)
        y0 = T.cast(T.floor(fy), T.index)
        y1 = T.minimum(y0 + 1, H - 1)
        ly = fy - T.floor(fy)
        # source columns for the whole output row
        fx = T.maximum((T.cast(T.indices(ows), T.f32) + 0.5) * sw - 0.5, 0.0)   # [OW]
        x0 = T.cast(T.floor(fx), T.index)
        x1 = T.minimum(x0 + 1, W - 1)
        lx = fx - T.floor(fx)
        a = T.cast(x[n, y0, x0, chans], T.f32)                  # [OW, C] gathers
        b = T.cast(x[n, y0, x1, chans], T.f32)
        c = T.cast(x[n, y1, x0, chans], T.f32)
        d = T.cast(x[n, y1, x1, chans], T.f32)
        top = a + (b - a) * lx
        bot = c + (d - c) * lx
        y[n, oy, ows, chans] = T.cast(top + (bot - top) * ly, T.f16)


KERNEL = bilinear_resize


def inputs(shape, rng):
    N, H, W, C = shape["N"], shape["H"], shape["W"], shape["C"]
    assert shape["OH"] == 2 * H and shape["OW"] == 2 * W
    return {"x": rng.standard_normal((N, H, W, C)).astype(np.float16)}


def _coords(n_in, n_out):
    f = np.maximum((np.arange(n_out, dtype=np.float32) + 0.5) * np.float32(n_in / n_out) - 0.5, 0.0)
    i0 = np.floor(f).astype(np.int64)
    i1 = np.minimum(i0 + 1, n_in - 1)
    return i0, i1, (f - i0).astype(np.float32)


def reference(x):
    x = np.asarray(x, dtype=np.float32)
    N, H, W, C = x.shape
    y0, y1, ly = _coords(H, 2 * H)
    x0, x1, lx = _coords(W, 2 * W)
    lx = lx[None, None, :, None]
    ly = ly[None, :, None, None]
    top = x[:, y0][:, :, x0] * (1 - lx) + x[:, y0][:, :, x1] * lx
    bot = x[:, y1][:, :, x0] * (1 - lx) + x[:, y1][:, :, x1] * lx
    return {"y": (top * (1 - ly) + bot * ly).astype(np.float16)}


def peer(x):
    import torch.nn.functional as F
    y = F.interpolate(x.permute(0, 3, 1, 2), scale_factor=2, mode="bilinear", align_corners=False)
    return {"y": y.permute(0, 2, 3, 1)}


TEST_SHAPES = [dict(N=1, H=1, W=1, C=1, OH=2, OW=2), dict(N=2, H=5, W=7, C=3, OH=10, OW=14),
               dict(N=3, H=17, W=13, C=67, OH=34, OW=26)]
BENCH_SHAPE = dict(N=8, H=128, W=128, C=64, OH=256, OW=256)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = 'F.interpolate(mode="bilinear", align_corners=False) on NCHW'


def OPS(shape):
    N, H, W, C = shape["N"], shape["H"], shape["W"], shape["C"]
    out = N * shape["OH"] * shape["OW"] * C
    return 9 * out, 2 * (N * H * W * C + out)
