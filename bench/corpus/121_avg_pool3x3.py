"""3x3 average pooling, stride 1, zero padding 1 (count_include_pad), NCHW f32, N32 C256 H56 W56. Peer: torch.compile(F.avg_pool2d)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def avg_pool3x3(x: T.In[T.f32, ("N", "C", "H", "W")], y: T.Out[T.f32, ("N", "C", "H", "W")]):
    N, C, H, W = x.shape
    hs, ws = T.domain(0, H), T.domain(0, W)
    oh, ow = T.indices(hs), T.indices(ws)
    for n, c in T.parallel(T.domain(0, N), T.domain(0, C)):
        acc = T.zeros((hs, ws), T.f32)
        for dh in range(3):
            ih = oh + (dh - 1)
            okh = T.broadcast((ih >= 0) & (ih < H), over=(hs, ws), dims=[0])
            for dw in range(3):
                iw = ow + (dw - 1)
                okw = T.broadcast((iw >= 0) & (iw < W), over=(hs, ws), dims=[1])
                acc = acc + T.load(x, (n, c, ih, iw), valid=okh & okw, fill=0.0)
        y[n, c, hs, ws] = acc / 9.0


KERNEL = avg_pool3x3


def inputs(shape, rng):
    return {"x": rng.standard_normal((shape["N"], shape["C"], shape["H"], shape["W"])).astype(np.float32)}


def reference(x):
    N, C, H, W = x.shape
    p = np.zeros((N, C, H + 2, W + 2))
    p[:, :, 1:H + 1, 1:W + 1] = x
    acc = sum(p[:, :, dh:dh + H, dw:dw + W] for dh in range(3) for dw in range(3))
    return {"y": acc / 9.0}


def peer(x):
    import torch.nn.functional as F
    return {"y": F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=True)}


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1), dict(N=2, C=3, H=5, W=7), dict(N=1, C=2, H=17, W=13)]
BENCH_SHAPE = dict(N=32, C=256, H=56, W=56)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile(F.avg_pool2d)"
