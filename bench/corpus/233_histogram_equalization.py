"""Histogram equalization per image: img [B, H, W] int32 in 0..255; a 256-bin histogram of the image,
its cumulative sum cdf, cdf_min = the first non-zero cdf value, and out[b, y, x] =
round(255 * (cdf[p] - cdf_min) / max(H*W - cdf_min, 1)) as int32 (p the pixel's value).
B=64 H=W=512. Peer: torch.compile (bincount per image via scatter_add, cumsum, a gather)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def histogram_equalization(img: T.In[T.i32, ("B", "H", "W"), T.Range(0, 256)],
                           out: T.Out[T.i32, ("B", "H", "W")]):
    B, H, W = img.shape
    imgs, ys, xs, bins = T.domain(0, B), T.domain(0, H), T.domain(0, W), T.domain(0, 256)
    npix = T.cast(H * W, T.i32)
    counts = T.buffer(over=(imgs, bins), dtype=T.i32, init=None)
    lut = T.buffer(over=(imgs, bins), dtype=T.f32, init=None)
    for b in T.parallel(imgs):
        # stored whole at the member's row, the histogram counts the pixels once (language.md, Histogram);
        # used in more math directly, each bin would re-read the image
        counts[b, bins] = T.histogram(img[b, ys, xs], bins)
        hist = counts[b, bins]
        # cdf[v] = sum of hist[j] for j <= v
        v = T.broadcast(T.indices(bins), over=(bins, bins), dims=[0])
        j = T.broadcast(T.indices(bins), over=(bins, bins), dims=[1])
        cdf = T.sum(T.where(j <= v, T.broadcast(hist, over=(bins, bins), dims=[1]), 0), axis=1)
        cdf_min = T.min(T.where(cdf > 0, cdf, npix))
        scaled = 255.0 * T.cast(cdf - cdf_min, T.f32) / T.cast(T.maximum(npix - cdf_min, 1), T.f32)
        lut[b, bins] = T.round(scaled)
    # buffers take no index tensors (lut[b, pix] is refused), and a T.parallel inside the image's member
    # is not constructed: look each pixel up in a workset of its own, at scalar coordinates
    for b, y, x in T.parallel(imgs, ys, xs):
        out[b, y, x] = T.cast(lut[b, img[b, y, x]], T.i32)


KERNEL = histogram_equalization
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, W = shape["B"], shape["H"], shape["W"]
    # low-contrast images: values bunched in a band, as equalization is for
    lo = rng.integers(0, 160, size=(B, 1, 1))
    img = lo + np.clip(rng.normal(40.0, 15.0, size=(B, H, W)), 0, 95).astype(np.int64)
    return dict(img=img.astype(np.int32))


def _scaled(img):
    B, H, W = img.shape
    hist = np.stack([np.bincount(img[b].ravel(), minlength=256) for b in range(B)])
    cdf = np.cumsum(hist, axis=1)
    cdf_min = np.where(cdf > 0, cdf, H * W).min(axis=1)
    num = np.take_along_axis(cdf, img.reshape(B, -1), axis=1).reshape(B, H, W) - cdf_min[:, None, None]
    den = np.maximum(H * W - cdf_min, 1)[:, None, None]
    return num, den


def _unrounded(img):
    num, den = _scaled(img)
    return 255.0 * num / den


def reference(img):
    num, den = _scaled(img)        # f32 arithmetic, as the description's kernel computes it
    return dict(out=np.rint(np.float32(255.0) * num.astype(np.float32) / den.astype(np.float32)).astype(np.int32))


def peer(img):
    import torch
    B, H, W = img.shape
    flat = img.reshape(B, -1).long()
    hist = torch.zeros((B, 256), dtype=torch.int64, device=img.device).scatter_add_(1, flat, torch.ones_like(flat))
    cdf = hist.cumsum(1)
    cdf_min = torch.where(cdf > 0, cdf, H * W).amin(1, keepdim=True)
    num = (cdf.gather(1, flat) - cdf_min).float()
    den = (H * W - cdf_min).clamp(min=1).float()
    return dict(out=torch.round(255.0 * num / den).to(torch.int32).reshape(B, H, W))


TEST_SHAPES = [dict(B=1, H=1, W=1), dict(B=3, H=7, W=13), dict(B=2, H=37, W=61), dict(B=5, H=17, W=130)]
BENCH_SHAPE = dict(B=64, H=512, W=512)
TOLERANCE = dict(rtol=0.0, atol=0.0)
UNROUNDED = {"out": _unrounded}
PEER = "torch.compile"
# Triton passes at the first two shapes (1x1x1: 2 min, 3x7x13: 3 min under TRITON_INTERPRET): the cdf's
# 256x256 masked sum runs per element, and the pixel lookup reads what the first workset wrote, so it
# "runs whole in the last program instance" (remark) -- one program walks every pixel.
SKIP = {"triton": "minutes under TRITON_INTERPRET (2 min at 1x1x1, 3 min at 3x7x13; passes there)"}


def OPS(shape):
    B, H, W = shape["B"], shape["H"], shape["W"]
    return 4 * B * H * W, 2 * 4 * B * H * W
