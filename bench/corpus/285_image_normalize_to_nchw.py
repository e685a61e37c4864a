"""Image batch preprocessing for a vision model (torchvision's ToTensor + Normalize, as DALI's and
hand-written loaders fuse them): decoded images are uint8 NHWC [N, H, W, 3] (passed as int8, the same
bytes), and out[n, c, h, w] = (img[n, h, w, c] / 255 - mean[c]) / std[c] in f16 NCHW [N, 3, H, W], with
per-channel mean and std f32 [3] (ImageNet's). N=256 H=224 W=224. Peer: torch.compile of permute,
float conversion and the normalization."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def image_normalize_to_nchw(img: T.In[T.i8, ("N", "H", "W", 3)], mean: T.In[T.f32, (3,)], std: T.In[T.f32, (3,)],
                            out: T.Out[T.f16, ("N", 3, "H", "W")]):
    N, H, W, _ = img.shape
    ns, hs, ws, cs = T.domain(0, N), T.domain(0, H), T.domain(0, W), T.domain(0, 3)
    pix = T.cast(T.cast(img[ns, hs, ws, cs], T.i32) & 0xFF, T.f32)          # [N, H, W, 3], 0..255
    y = (pix * (1.0 / 255.0) - mean[cs]) / std[cs]
    out[ns, cs, hs, ws] = T.cast(T.transpose(y, [0, 3, 1, 2]), T.f16)


KERNEL = image_normalize_to_nchw

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def inputs(shape, rng):
    N, H, W = shape["N"], shape["H"], shape["W"]
    u8 = rng.integers(0, 256, size=(N, H, W, 3), dtype=np.int64)
    if u8.size:
        u8.flat[0], u8.flat[-1] = 255, 0                   # both ends of the byte range
    return dict(img=u8.astype(np.uint8).view(np.int8), mean=MEAN.copy(), std=STD.copy())


def reference(img, mean, std):
    x = img.view(np.uint8).astype(np.float64) / 255.0
    y = (x - mean.astype(np.float64)) / std.astype(np.float64)
    return dict(out=y.transpose(0, 3, 1, 2))


def peer(img, mean, std):
    x = img.view(__import__("torch").uint8).permute(0, 3, 1, 2).float() / 255.0
    return dict(out=((x - mean[None, :, None, None]) / std[None, :, None, None]).half())


def OPS(shape):
    n = shape["N"] * shape["H"] * shape["W"] * 3
    return 3 * n, 3 * n


TEST_SHAPES = [dict(N=1, H=1, W=1), dict(N=2, H=5, W=7), dict(N=3, H=13, W=31),
               dict(N=0, H=3, W=5)]   # the last: no rows (check.py; CI runs the second)
BENCH_SHAPE = dict(N=256, H=224, W=224)
TOLERANCE = dict(rtol=1e-3, atol=2e-3)
PEER = "torch.compile"
