"""Row normalization to unit L1 norm: out[r] = x[r] / max(sum |x[r]|, 1e-12), f16 [M, N] in and out. M65536 N512. Peer: F.normalize(p=1) under torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def l1_row_normalize(x: T.In[T.f16, ("M", "N")], out: T.Out[T.f16, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for r in T.parallel(T.domain(0, M)):
        row = T.cast(x[r, cols], T.f32)
        out[r, cols] = T.cast(row / T.maximum(T.sum(T.abs(row)), 1e-12), T.f16)


KERNEL = l1_row_normalize


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    x = rng.standard_normal((M, N)).astype(np.float16)
    if M > 1:
        x[rng.integers(M)] = 0.0      # an all-zero row: divided by 1e-12, stays 0
    return dict(x=x)


def reference(x):
    xf = x.astype(np.float64)
    return {"out": (xf / np.maximum(np.abs(xf).sum(axis=1, keepdims=True), 1e-12)).astype(np.float16)}


def peer(x):
    import torch.nn.functional as F
    # in f32: on f16 the clamp's eps 1e-12 underflows to 0, and an all-zero row gives NaN in eager torch
    return {"out": F.normalize(x.float(), p=1.0, dim=1).to(x.dtype)}


def OPS(shape):
    n = shape["M"] * shape["N"]
    return 3 * n, 4 * n


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=131, N=5)]
BENCH_SHAPE = dict(M=65536, N=512)
TOLERANCE = dict(rtol=2e-3, atol=1e-4)
PEER = "F.normalize(p=1) under torch.compile"
