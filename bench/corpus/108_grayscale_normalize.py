"""Image preprocessing: img uint8 [B, H, W, 3] (NHWC, RGB) -> f32 [B, 1, H, W]:
out = ((0.299 R + 0.587 G + 0.114 B) / 255 - mean) / std, mean and std float scalars.

tessel has no unsigned integer types ("use a wider signed type and masks", docs/language.md), so the
image is declared as i8 (the caller passes img.view(torch.int8)) and each byte is widened to i32 and
masked with 0xFF; a user would rather declare a uint8 view and cast it to f32.
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def grayscale_normalize(img: T.In[T.i8, ("B", "H", "W", 3)], out: T.Out[T.f32, ("B", 1, "H", "W")],
                        mean: T.f32, std: T.f32):
    B, H, W, _ = img.shape
    bs, hs, ws = T.domain(0, B), T.domain(0, H), T.domain(0, W)

    def channel(c):
        return T.cast(T.cast(img[bs, hs, ws, c], T.i32) & 0xFF, T.f32)

    gray = 0.299 * channel(0) + 0.587 * channel(1) + 0.114 * channel(2)
    out[bs, 0, hs, ws] = (gray / 255.0 - mean) / std


KERNEL = grayscale_normalize


def inputs(shape, rng):
    B, H, W = shape["B"], shape["H"], shape["W"]
    img = rng.integers(0, 256, (B, H, W, 3), dtype=np.uint8)
    return dict(img=img.view(np.int8), mean=0.449, std=0.226)


def reference(img, mean, std):
    px = img.view(np.uint8).astype(np.float64)
    gray = 0.299 * px[..., 0] + 0.587 * px[..., 1] + 0.114 * px[..., 2]
    return {"out": ((gray / 255.0 - mean) / std)[:, None, :, :]}


def peer(img, mean, std):
    import torch
    px = img.view(torch.uint8).float()
    gray = 0.299 * px[..., 0] + 0.587 * px[..., 1] + 0.114 * px[..., 2]
    return {"out": ((gray / 255.0 - mean) / std).unsqueeze(1)}


TEST_SHAPES = [dict(B=1, H=1, W=1), dict(B=2, H=5, W=7), dict(B=3, H=17, W=31)]
BENCH_SHAPE = dict(B=64, H=512, W=512)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    B, H, W = shape["B"], shape["H"], shape["W"]
    return 8 * B * H * W, B * H * W * (3 + 4)
