"""Local response normalization across channels (size 5, alpha 1e-4, beta 0.75, k 2): out[n,c,h,w] = x / (k + alpha/5 * sum over c' in [c-2, c+2] (clipped) of x[n,c',h,w]^2)^beta, NCHW f32, N16 C96 H55 W55. Peer: F.local_response_norm."""
import numpy as np
import tessel
import tessel.language as T

SIZE, ALPHA, BETA, K = 5, 1e-4, 0.75, 2.0


@tessel.kernel
def local_response_norm(x: T.In[T.f32, ("N", "C", "H", "W")], out: T.Out[T.f32, ("N", "C", "H", "W")]):
    N, C, H, W = x.shape
    chans, hs, ws = T.domain(0, C), T.domain(0, H), T.domain(0, W)
    for n, c in T.parallel(T.domain(0, N), chans):
        win = chans[T.maximum(c - SIZE // 2, 0):T.minimum(c + SIZE // 2 + 1, C)]
        xw = x[n, win, hs, ws]
        sq = T.sum(xw * xw, axis=0)
        out[n, c, hs, ws] = x[n, c, hs, ws] / (K + (ALPHA / SIZE) * sq) ** BETA


KERNEL = local_response_norm


def inputs(shape, rng):
    return dict(x=(10.0 * rng.standard_normal((shape["N"], shape["C"], shape["H"], shape["W"]))).astype(np.float32))


def reference(x):
    xf = x.astype(np.float64)
    sq = xf * xf
    C = x.shape[1]
    s = np.zeros_like(xf)
    for c in range(C):
        s[:, c] = sq[:, max(c - SIZE // 2, 0):min(c + SIZE // 2 + 1, C)].sum(axis=1)
    return {"out": xf / (K + ALPHA / SIZE * s) ** BETA}


def peer(x):
    import torch.nn.functional as F
    return {"out": F.local_response_norm(x, SIZE, alpha=ALPHA, beta=BETA, k=K)}


def OPS(shape):
    n = shape["N"] * shape["C"] * shape["H"] * shape["W"]
    return 14 * n, 8 * n


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1), dict(N=2, C=3, H=5, W=7), dict(N=1, C=13, H=11, W=17), dict(N=3, C=7, H=1, W=31)]
BENCH_SHAPE = dict(N=16, C=96, H=55, W=55)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "F.local_response_norm"
