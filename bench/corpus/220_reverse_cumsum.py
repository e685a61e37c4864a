"""Suffix sums along rows: out[m, n] = sum over j >= n of x[m, j], x [M, N] f32. M=4096 N=8192.
Peer: torch.compile of x.flip(-1).cumsum(-1).flip(-1)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def reverse_cumsum(x: T.In[T.f32, ("M", "N")], out: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        out[m, cols] = T.cumsum(x[m, cols], reverse=True)


KERNEL = reverse_cumsum
CONSTEXPRS = {}


def inputs(shape, rng):
    return dict(x=rng.standard_normal((shape["M"], shape["N"])).astype(np.float32))


def reference(x):
    return dict(out=np.cumsum(x.astype(np.float64)[:, ::-1], axis=1)[:, ::-1])


def peer(x):
    return dict(out=x.flip(-1).cumsum(-1).flip(-1))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=2, N=4099)]
BENCH_SHAPE = dict(M=4096, N=8192)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return M * N, 2 * 4 * M * N
