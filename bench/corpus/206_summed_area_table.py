"""Summed-area table (integral image) of a batch of images: out[n, i, j] = sum of x[n, :i+1, :j+1] for
x [N, H, W] f32, out f32. N=64 H=W=1024. Peer: torch.compile (x.cumsum(1).cumsum(2))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def summed_area_table(x: T.In[T.f32, ("N", "H", "W")], out: T.Out[T.f32, ("N", "H", "W")]):
    N, H, W = x.shape
    cols = T.domain(0, W)
    for n in T.parallel(T.domain(0, N)):
        acc = T.zeros(cols)                                # column sums of the rows above, after the row scan
        for i in T.domain(0, H):
            acc = acc + T.cumsum(x[n, i, cols])
            out[n, i, cols] = acc


KERNEL = summed_area_table
CONSTEXPRS = {}


def inputs(shape, rng):
    N, H, W = shape["N"], shape["H"], shape["W"]
    return dict(x=rng.standard_normal((N, H, W)).astype(np.float32))


def reference(x):
    return dict(out=x.astype(np.float64).cumsum(axis=1).cumsum(axis=2))


def peer(x):
    return dict(out=x.cumsum(1).cumsum(2))


TEST_SHAPES = [dict(N=1, H=1, W=1), dict(N=2, H=7, W=13), dict(N=3, H=37, W=130), dict(N=1, H=131, W=67)]
BENCH_SHAPE = dict(N=64, H=1024, W=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-3)
PEER = "torch.compile"


def OPS(shape):
    N, H, W = shape["N"], shape["H"], shape["W"]
    return 2 * N * H * W, 8 * N * H * W
