"""3x3 convolution, NHWC, stride 1, padding 1: y[n, oh, ow, o] = sum_{kh, kw, c} x[n, oh+kh-1, ow+kw-1, c]
* w[kh, kw, c, o] (zero outside the image). x [N, H, W, C] f16, weight [3, 3, C, OC] (HWIO) f16,
y [N, H, W, OC] f16, f32 accumulation. 64->64 channels, 56x56, batch 32. Peer: torch conv2d on
channels_last tensors."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def conv3x3_nhwc(x: T.In[T.f16, ("N", "H", "W", "C")],
                 w: T.In[T.f16, (3, 3, "C", "OC")],
                 y: T.Out[T.f16, ("N", "H", "W", "OC")]):
    N, H, W, C = x.shape
    OC = w.shape[3]
    cols, chans, ochans = T.domain(0, W), T.domain(0, C), T.domain(0, OC)
    ow = T.indices(cols)
    for n, oh in T.parallel(T.domain(0, N), T.domain(0, H)):
        acc = T.zeros((cols, ochans))                          # f32 [W, OC]: one output row
        for kh in range(3):
            ih = oh + (kh - 1)
            for kw in range(3):
                iw = ow + (kw - 1)                             # input column of each output column
                ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                xs = T.load(x, (n, ih, iw, chans), valid=ok, fill=0.0)   # [W, C], zero padding
                acc = acc + T.matmul(xs, w[kh, kw, chans, ochans], acc_dtype=T.f32)
        y[n, oh, cols, ochans] = T.cast(acc, T.f16)


KERNEL = conv3x3_nhwc
CONSTEXPRS = {}


def inputs(shape, rng):
    N, H, W, C, OC = shape["N"], shape["H"], shape["W"], shape["C"], shape["OC"]
    return dict(x=rng.standard_normal((N, H, W, C)).astype(np.float16),
                w=(rng.standard_normal((3, 3, C, OC)) / np.sqrt(9 * C)).astype(np.float16))


def reference(x, w):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    N, H, W, C = x.shape
    xp = np.zeros((N, H + 2, W + 2, C))
    xp[:, 1:H + 1, 1:W + 1] = x
    y = np.zeros((N, H, W, w.shape[3]))
    for kh in range(3):
        for kw in range(3):
            y += np.einsum("nhwc,co->nhwo", xp[:, kh:kh + H, kw:kw + W], w[kh, kw])
    return dict(y=y)


def peer(x, w):
    import torch.nn.functional as F
    import torch
    xc = x.permute(0, 3, 1, 2)                                  # NCHW view of NHWC memory: channels_last
    wc = w.permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)   # [OC, C, 3, 3]
    return dict(y=F.conv2d(xc, wc, padding=1).permute(0, 2, 3, 1))


TEST_SHAPES = [dict(N=1, H=1, W=1, C=1, OC=1), dict(N=2, H=5, W=7, C=3, OC=5),
               dict(N=1, H=13, W=11, C=16, OC=17), dict(N=3, H=2, W=3, C=64, OC=64)]
BENCH_SHAPE = dict(N=32, H=56, W=56, C=64, OC=64)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.nn.functional.conv2d (channels_last)"


def OPS(shape):
    N, H, W, C, OC = shape["N"], shape["H"], shape["W"], shape["C"], shape["OC"]
    return 2 * 9 * N * H * W * C * OC, 2 * (N * H * W * (C + OC) + 9 * C * OC)
