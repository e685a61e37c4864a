"""Softmax backward: given y = softmax(x) over the rows of y [M, N] and the upstream gradient dy [M, N],
dx = y * (dy - sum(dy * y, row)). f32, 16384x4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def softmax_backward(y: T.In[T.f32, ("M", "N")], dy: T.In[T.f32, ("M", "N")],
                     dx: T.Out[T.f32, ("M", "N")]):
    M, N = y.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        yr = y[m, cols]
        g = dy[m, cols]
        dx[m, cols] = yr * (g - T.sum(g * yr))


KERNEL = softmax_backward
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    logits = 2.0 * rng.standard_normal((M, N))
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return dict(y=(e / e.sum(axis=1, keepdims=True)).astype(np.float32),
                dy=rng.standard_normal((M, N)).astype(np.float32))


def reference(y, dy):
    yd, gd = y.astype(np.float64), dy.astype(np.float64)
    return dict(dx=yd * (gd - (gd * yd).sum(axis=1, keepdims=True)))


def peer(y, dy):
    return dict(dx=y * (dy - (dy * y).sum(dim=-1, keepdim=True)))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=2, N=4099), dict(M=5, N=64)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 4 * M * N, 3 * 4 * M * N
