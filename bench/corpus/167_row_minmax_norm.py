"""Row min-max normalization: out = (x - min) / max(max - min, 1e-6) per row, f16 [M, N] in and out. M32768 N2048. Peer: torch.compile."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def row_minmax_norm(x: T.In[T.f16, ("M", "N")], y: T.Out[T.f16, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(x[m, cols], T.f32)
        lo, hi = T.min(row), T.max(row)
        y[m, cols] = T.cast((row - lo) / T.maximum(hi - lo, 1e-6), T.f16)


KERNEL = row_minmax_norm


def inputs(shape, rng):
    return dict(x=(rng.standard_normal((shape["M"], shape["N"])) * 4.0).astype(np.float16))


def reference(x):
    x = x.astype(np.float64)
    lo, hi = x.min(1, keepdims=True), x.max(1, keepdims=True)
    return dict(y=((x - lo) / np.maximum(hi - lo, 1e-6)).astype(np.float16))


def peer(x):
    xf = x.float()
    lo, hi = xf.amin(1, keepdim=True), xf.amax(1, keepdim=True)
    return dict(y=((xf - lo) / (hi - lo).clamp_min(1e-6)).half())


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=32768, N=2048)
TOLERANCE = dict(rtol=2e-3, atol=1e-3)
PEER = "torch.compile"
