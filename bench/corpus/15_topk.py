"""Top-k per row (k = 8): the k largest values of each row of an f32 [M, N] matrix (16384 x 32000),
in descending order, with their column indices (int64), as torch.topk(x, 8, dim=1). Peer: torch.topk."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def topk(x: T.In[T.f32, ("M", "N")],
         values: T.Out[T.f32, ("M", "K")],
         indices: T.Out[T.i64, ("M", "K")],
         TOPK: T.Constexpr[int] = 8):
    M, N = x.shape
    cols = T.domain(0, N)
    pos = T.indices(cols)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        for j in range(TOPK):
            v, i = T.argmax(row, axis=0, tie="lowest")
            values[m, j] = v
            indices[m, j] = T.cast(i, T.i64)
            row = T.where(pos == i, -math.inf, row)


KERNEL = topk
CONSTEXPRS = {"TOPK": 8}


def inputs(shape, rng):
    return {"x": rng.standard_normal((shape["M"], shape["N"])).astype(np.float32)}


def reference(x):
    k = CONSTEXPRS["TOPK"]
    idx = np.argsort(-x.astype(np.float64), axis=1, kind="stable")[:, :k]
    return {"values": np.take_along_axis(x, idx, axis=1).astype(np.float64),
            "indices": idx.astype(np.int64)}


def peer(x):
    import torch
    v, i = torch.topk(x, CONSTEXPRS["TOPK"], dim=1)
    return {"values": v, "indices": i}


TEST_SHAPES = [dict(M=1, N=8, K=8), dict(M=3, N=127, K=8), dict(M=7, N=1031, K=8),
               dict(M=13, N=2003, K=8)]
BENCH_SHAPE = dict(M=16384, N=32000, K=8)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch.topk"


def OPS(shape):
    n = shape["M"] * shape["N"]
    return 2 * 8 * n, 4 * n + 12 * 8 * shape["M"]
