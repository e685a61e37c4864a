"""Swap the two last axes of a batch of matrices (transpose copy): out[b, j, i] = x[b, i, j], f16 [B, M, N], B32 M1024 N1024. Peer: x.transpose(1, 2).contiguous()."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def batched_transpose(x: T.In[T.f16, ("B", "M", "N")], out: T.Out[T.f16, ("B", "N", "M")]):
    B, M, N = x.shape
    bs, rows, cols = T.domain(0, B), T.domain(0, M), T.domain(0, N)
    out[bs, cols, rows] = T.transpose(x[bs, rows, cols], [0, 2, 1])


KERNEL = batched_transpose


def inputs(shape, rng):
    return dict(x=rng.standard_normal((shape["B"], shape["M"], shape["N"])).astype(np.float16))


def reference(x):
    return {"out": np.ascontiguousarray(x.transpose(0, 2, 1))}


def peer(x):
    return {"out": x.transpose(1, 2).contiguous()}


def OPS(shape):
    return 0, 2 * 2 * shape["B"] * shape["M"] * shape["N"]


TEST_SHAPES = [dict(B=1, M=1, N=1), dict(B=3, M=17, N=127), dict(B=2, M=131, N=67), dict(B=1, M=1, N=1031)]
BENCH_SHAPE = dict(B=32, M=1024, N=1024)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "x.transpose(1, 2).contiguous()"
