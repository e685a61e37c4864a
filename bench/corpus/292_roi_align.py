"""RoIAlign (Mask R-CNN's box head; torchvision.ops.roi_align with aligned=True, sampling_ratio=2, output
PH x PW = 7 x 7, as detectron2 calls it): for each region r, rois f32 [R, 5] holds (image index, x1, y1, x2, y2) in
input coordinates; with spatial_scale s the box is (x1 s - 0.5, ..., y2 s - 0.5), cut into PH x PW bins, and
out[r, c, i, j] is the mean over the bin's 2 x 2 regularly spaced sample points of the bilinear
interpolation of feat[n, c] (f32 [N, C, H, W]) at each point, torchvision's rule for points near the edge:
a point with y < -1 or y > H (x likewise) contributes 0, coordinates below 0 are clamped to 0, and a point
at or past the last row or column reads that row or column. out f32 [R, C, PH, PW]. N2 C256 H200 W272 (an
FPN level of a 800 x 1088 image), R1024. Peer: torchvision.ops.roi_align."""
import numpy as np
import tessel
import tessel.language as T

SAMPLES = 2


@tessel.fn
def corners(c, size):
    """Bilinear taps of coordinates c (f32) along an axis of `size` members, torchvision's edge rule:
    (low index, high index, low weight, high weight), the weights 0 for a point outside [-1, size]."""
    sz = T.cast(size, T.f32)
    inside = (c >= -1.0) & (c <= sz)
    c = T.maximum(c, 0.0)
    lo = T.floor(c)
    top = lo >= sz - 1.0
    lo = T.where(top, sz - 1.0, lo)
    hi = T.where(top, sz - 1.0, lo + 1.0)
    frac = T.where(top, 0.0, c - lo)
    return (T.cast(lo, T.i32), T.cast(hi, T.i32), T.where(inside, 1.0 - frac, 0.0),
            T.where(inside, frac, 0.0))


@tessel.kernel
def roi_align(feat: T.In[T.f32, ("N", "C", "H", "W")], rois: T.In[T.f32, ("R", 5)],
              out: T.Out[T.f32, ("R", "C", "PH", "PW")], spatial_scale: T.f32):
    N, C, H, W = feat.shape
    R = rois.shape[0]
    PH, PW = out.shape[2], out.shape[3]
    chans, ph, pw = T.domain(0, C), T.domain(0, PH), T.domain(0, PW)
    for r in T.parallel(T.domain(0, R)):
        n = T.cast(rois[r, 0], T.i32)
        x1 = rois[r, 1] * spatial_scale - 0.5
        y1 = rois[r, 2] * spatial_scale - 0.5
        bin_w = (rois[r, 3] * spatial_scale - 0.5 - x1) / T.cast(PW, T.f32)
        bin_h = (rois[r, 4] * spatial_scale - 0.5 - y1) / T.cast(PH, T.f32)
        i = T.cast(T.indices(ph), T.f32)
        j = T.cast(T.indices(pw), T.f32)
        acc = T.zeros((chans, ph, pw))
        for sy in range(SAMPLES):
            y = y1 + i * bin_h + (sy + 0.5) * bin_h / SAMPLES
            ylo, yhi, wyl, wyh = corners(y, H)
            for sx in range(SAMPLES):
                x = x1 + j * bin_w + (sx + 0.5) * bin_w / SAMPLES
                xlo, xhi, wxl, wxh = corners(x, W)
                # ylo over ph and xlo over pw: an outer product, feat[...] is over (chans, ph, pw)
                wll = T.broadcast(wyl, over=(ph, pw), dims=[0]) * T.broadcast(wxl, over=(ph, pw), dims=[1])
                wlh = T.broadcast(wyl, over=(ph, pw), dims=[0]) * T.broadcast(wxh, over=(ph, pw), dims=[1])
                whl = T.broadcast(wyh, over=(ph, pw), dims=[0]) * T.broadcast(wxl, over=(ph, pw), dims=[1])
                whh = T.broadcast(wyh, over=(ph, pw), dims=[0]) * T.broadcast(wxh, over=(ph, pw), dims=[1])
                acc = acc + (feat[n, chans, ylo, xlo] * wll + feat[n, chans, ylo, xhi] * wlh
                             + feat[n, chans, yhi, xlo] * whl + feat[n, chans, yhi, xhi] * whh)
        out[r, chans, ph, pw] = acc / float(SAMPLES * SAMPLES)


KERNEL = roi_align


def inputs(shape, rng):
    N, C, H, W, R = shape["N"], shape["C"], shape["H"], shape["W"], shape["R"]
    scale = 0.25
    img_w, img_h = W / scale, H / scale
    x1 = rng.random(R) * img_w * 1.1 - 0.05 * img_w         # some boxes cross the border
    y1 = rng.random(R) * img_h * 1.1 - 0.05 * img_h
    bw = rng.random(R) * img_w * 0.6 + 1.0
    bh = rng.random(R) * img_h * 0.6 + 1.0
    if R > 1:
        bw[0], bh[0] = 0.5, 0.5                              # a box smaller than a bin
    rois = np.stack([rng.integers(0, N, size=R), x1, y1, x1 + bw, y1 + bh], axis=1)
    return dict(feat=rng.standard_normal((N, C, H, W)).astype(np.float32), rois=rois.astype(np.float32),
                spatial_scale=scale)


def _taps(c, size):
    inside = (c >= -1.0) & (c <= size)
    c = np.maximum(c, 0.0)
    lo = np.floor(c)
    top = lo >= size - 1
    lo = np.where(top, size - 1, lo)
    hi = np.where(top, size - 1, lo + 1)
    frac = np.where(top, 0.0, c - lo)
    return lo.astype(int), hi.astype(int), np.where(inside, 1 - frac, 0.0), np.where(inside, frac, 0.0)


def reference(feat, rois, spatial_scale):
    N, C, H, W = feat.shape
    R = rois.shape[0]
    f = feat.astype(np.float64)
    PH, PW = 7, 7
    out = np.zeros((R, C, PH, PW))
    for r in range(R):
        n = int(rois[r, 0])
        x1, y1 = rois[r, 1] * spatial_scale - 0.5, rois[r, 2] * spatial_scale - 0.5
        bw = (rois[r, 3] * spatial_scale - 0.5 - x1) / 7.0
        bh = (rois[r, 4] * spatial_scale - 0.5 - y1) / 7.0
        for sy in range(SAMPLES):
            yl, yh, wyl, wyh = _taps(y1 + np.arange(7) * bh + (sy + 0.5) * bh / SAMPLES, H)
            for sx in range(SAMPLES):
                xl, xh, wxl, wxh = _taps(x1 + np.arange(7) * bw + (sx + 0.5) * bw / SAMPLES, W)
                for (ya, wy) in ((yl, wyl), (yh, wyh)):
                    for (xa, wx) in ((xl, wxl), (xh, wxh)):
                        out[r] += f[n][:, ya][:, :, xa] * (wy[:, None] * wx[None, :])
    return dict(out=out / (SAMPLES * SAMPLES))


def peer(feat, rois, spatial_scale):
    from torchvision.ops import roi_align as tv_roi_align
    return dict(out=tv_roi_align(feat, rois, (7, 7), spatial_scale=spatial_scale, sampling_ratio=SAMPLES,
                                 aligned=True))


def OPS(shape):
    R, C = shape["R"], shape["C"]
    return R * C * 49 * 4 * 4 * 3, R * C * 49 * 4 * (16 + 1)


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1, R=1, PH=7, PW=7), dict(N=2, C=2, H=5, W=7, R=2, PH=7, PW=7),
               dict(N=2, C=5, H=13, W=17, R=11, PH=7, PW=7)]
BENCH_SHAPE = dict(N=2, C=256, H=200, W=272, R=1024, PH=7, PW=7)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torchvision.ops.roi_align"
