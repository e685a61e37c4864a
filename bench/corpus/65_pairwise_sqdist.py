"""Pairwise squared Euclidean distances: D[i, j] = |x_i|^2 + |y_j|^2 - 2 x_i . y_j, clamped at 0;
X [M, D], Y [N, D] f32, out f32 [M, N]; M=N=4096, D=128. Peer: torch.cdist(X, Y)**2 or the expanded
form under torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def pairwise_sqdist(x: T.In[T.f32, ("M", "D")], y: T.In[T.f32, ("N", "D")],
                    out: T.Out[T.f32, ("M", "N")]):
    M, D = x.shape
    N = y.shape[0]
    rows, cols, ds = T.domain(0, M), T.domain(0, N), T.domain(0, D)
    xs, ys = x[rows, ds], y[cols, ds]
    xy = T.matmul(xs, ys, transpose_rhs=True)            # [M, N], f32 accumulator
    xx = T.sum(xs * xs, axis=1)                          # [M]
    yy = T.sum(ys * ys, axis=1)                          # [N]
    d = (T.broadcast(xx, over=(rows, cols), dims=[0]) + T.broadcast(yy, over=(rows, cols), dims=[1])
         - 2.0 * xy)
    out[rows, cols] = T.maximum(d, 0.0)


KERNEL = pairwise_sqdist
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, D = shape["M"], shape["N"], shape["D"]
    return dict(x=rng.standard_normal((M, D)).astype(np.float32),
                y=(0.5 + rng.standard_normal((N, D))).astype(np.float32))


def reference(x, y):
    diff = x.astype(np.float64)[:, None, :] - y.astype(np.float64)[None, :, :]
    return dict(out=(diff * diff).sum(axis=-1))


def peer(x, y):
    import torch
    xx = (x * x).sum(-1)[:, None]
    yy = (y * y).sum(-1)[None, :]
    return dict(out=(xx + yy - 2.0 * (x @ y.T)).clamp_min(0.0))


TEST_SHAPES = [dict(M=1, N=1, D=1), dict(M=3, N=5, D=7), dict(M=17, N=13, D=31), dict(M=37, N=67, D=128)]
BENCH_SHAPE = dict(M=4096, N=4096, D=128)
TOLERANCE = dict(rtol=1e-4, atol=1e-3)
PEER = "torch.compile (expanded form), torch.cdist"


def OPS(shape):
    M, N, D = shape["M"], shape["N"], shape["D"]
    return 2 * M * N * D + 2 * (M + N) * D + 4 * M * N, 4 * (M * D + N * D + M * N)
