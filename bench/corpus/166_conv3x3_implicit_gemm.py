"""2-D convolution as an implicit GEMM, 3x3 stride 1 pad 1, NHWC bf16 input [N, H, W, C], weights [3, 3, C, K], out f32 [N, H, W, K]. N8 H56 W56 C256 K256. Peer: torch.compile(F.conv2d) with layout permutes (channels_last)."""
import numpy as np
import torch
import torch.nn.functional as Fn
import tessel
import tessel.language as T


@tessel.kernel
def conv3x3_implicit_gemm(x: T.In[T.bf16, ("N", "H", "W", "C")], w: T.In[T.bf16, (3, 3, "C", "K")],
                          out: T.Out[T.f32, ("N", "H", "W", "K")]):
    N, H, W, C = x.shape
    K = w.shape[3]
    chans, ochans, ws = T.domain(0, C), T.domain(0, K), T.domain(0, W)
    for n, oh in T.parallel(T.domain(0, N), T.domain(0, H)):
        acc = T.zeros((ws, ochans), T.f32)
        for kh in range(3):
            for kw in range(3):
                ih = oh + (kh - 1)
                iw = T.indices(ws) + (kw - 1)
                ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                xs = T.load(x, (n, ih, iw, chans), valid=ok, fill=0.0)          # [W, C] window, zero padded
                acc = acc + T.matmul(xs, w[kh, kw, chans, ochans], acc_dtype=T.f32)
        out[n, oh, ws, ochans] = acc


KERNEL = conv3x3_implicit_gemm


def inputs(shape, rng):
    N, H, W, C, K = shape["N"], shape["H"], shape["W"], shape["C"], shape["K"]
    return dict(x=rng.standard_normal((N, H, W, C)).astype(np.float32),
                w=(rng.standard_normal((3, 3, C, K)) / np.sqrt(9 * C)).astype(np.float32))


def reference(x, w):
    N, H, W, C = x.shape
    xp = np.zeros((N, H + 2, W + 2, C))
    xp[:, 1:H + 1, 1:W + 1] = x
    out = np.zeros((N, H, W, w.shape[3]))
    for kh in range(3):
        for kw in range(3):
            out += np.einsum("nhwc,ck->nhwk", xp[:, kh:kh + H, kw:kw + W], w[kh, kw].astype(np.float64))
    return dict(out=out.astype(np.float32))


def peer(x, w):
    xc = x.permute(0, 3, 1, 2)                                   # NCHW view of channels_last memory
    wc = w.permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)   # [K, C, 3, 3]
    return dict(out=Fn.conv2d(xc, wc, padding=1).permute(0, 2, 3, 1).float())


TEST_SHAPES = [dict(N=1, H=1, W=1, C=1, K=1), dict(N=1, H=3, W=5, C=7, K=3), dict(N=2, H=7, W=11, C=19, K=13)]
BENCH_SHAPE = dict(N=8, H=56, W=56, C=256, K=256)
TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "torch.compile(F.conv2d), channels_last"
