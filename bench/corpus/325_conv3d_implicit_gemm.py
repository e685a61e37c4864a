"""3-D convolution (video and volumetric models: 3-D UNets, video VAEs and diffusion backbones), 3x3x3, stride 1,
padding 1, no bias, channels-last: x bf16 [N, D, H, W, C] and weights w bf16 [3, 3, 3, C, K] (kd, kh, kw, in,
out); out[n, d, h, w, k] = sum over kd, kh, kw, c of x[n, d + kd - 1, h + kh - 1, w + kw - 1, c] *
w[kd, kh, kw, c, k] (zero outside the volume), accumulated in f32, out f32 [N, D, H, W, K]. N2 D16 H32 W32
C128 K128. Peer: torch.compile(F.conv3d) on channels_last_3d tensors (cuDNN)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def conv3d_implicit_gemm(x: T.In[T.bf16, ("N", "D", "H", "W", "C")], w: T.In[T.bf16, (3, 3, 3, "C", "K")],
                         out: T.Out[T.f32, ("N", "D", "H", "W", "K")]):
    N, D, H, W, C = x.shape
    K = w.shape[4]
    ws, cs, ks = T.domain(0, W), T.domain(0, C), T.domain(0, K)
    for n, d, h in T.parallel(T.domain(0, N), T.domain(0, D), T.domain(0, H)):
        acc = T.full((ws, ks), 0.0, T.f32)
        for kd in range(3):
            for kh in range(3):
                for kw in range(3):
                    dd, hh = d + kd - 1, h + kh - 1
                    wpos = T.indices(ws) + (kw - 1)
                    ok = (wpos >= 0) & (wpos < W) & (dd >= 0) & (dd < D) & (hh >= 0) & (hh < H)
                    tile = T.load(x, (n, dd, hh, wpos, cs), valid=T.broadcast(ok, over=(ws, cs), dims=[0]), fill=0.0)
                    acc = acc + T.matmul(tile, w[kd, kh, kw, cs, ks], acc_dtype=T.f32)
        out[n, d, h, ws, ks] = acc


KERNEL = conv3d_implicit_gemm


def inputs(shape, rng):
    N, D, H, W, C, K = (shape[k] for k in ("N", "D", "H", "W", "C", "K"))
    return dict(x=rng.standard_normal((N, D, H, W, C)).astype(np.float32),
                w=(rng.standard_normal((3, 3, 3, C, K)) / np.sqrt(27 * C)).astype(np.float32))


def reference(x, w):
    N, D, H, W, C = x.shape
    xp = np.zeros((N, D + 2, H + 2, W + 2, C))
    xp[:, 1:-1, 1:-1, 1:-1] = x
    out = np.zeros((N, D, H, W, w.shape[4]))
    for kd in range(3):
        for kh in range(3):
            for kw in range(3):
                out += xp[:, kd:kd + D, kh:kh + H, kw:kw + W] @ w[kd, kh, kw].astype(np.float64)
    return dict(out=out)


def peer(x, w):
    import torch
    import torch.nn.functional as F
    xc = x.permute(0, 4, 1, 2, 3).contiguous(memory_format=torch.channels_last_3d)
    wc = w.permute(4, 3, 0, 1, 2).contiguous(memory_format=torch.channels_last_3d)
    y = F.conv3d(xc, wc, padding=1)
    return dict(out=y.permute(0, 2, 3, 4, 1).float())


def OPS(shape):
    N, D, H, W, C, K = (shape[k] for k in ("N", "D", "H", "W", "C", "K"))
    return 2 * 27 * N * D * H * W * C * K, 2 * N * D * H * W * C + 2 * 27 * C * K + 4 * N * D * H * W * K


TEST_SHAPES = [dict(N=1, D=1, H=1, W=1, C=1, K=1), dict(N=1, D=2, H=1, W=5, C=3, K=2),
               dict(N=2, D=2, H=3, W=7, C=5, K=3),
               dict(N=1, D=0, H=2, W=3, C=2, K=3)]
BENCH_SHAPE = dict(N=2, D=16, H=32, W=32, C=128, K=128)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
BENCH_TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
