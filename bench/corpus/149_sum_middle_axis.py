"""Sum over the middle axis of a 3-D tensor: out[a, c] = sum_b x[a, b, c], x f32 [A, B, C], A64 B512 C1024. Peer: torch.sum(dim=1)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sum_middle_axis(x: T.In[T.f32, ("A", "B", "C")], out: T.Out[T.f32, ("A", "C")]):
    A, B, C = x.shape
    ra, rb, rc = T.domain(0, A), T.domain(0, B), T.domain(0, C)
    out[ra, rc] = T.sum(x[ra, rb, rc], axis=1)


KERNEL = sum_middle_axis


def inputs(shape, rng):
    return dict(x=rng.standard_normal((shape["A"], shape["B"], shape["C"])).astype(np.float32))


def reference(x):
    return {"out": x.astype(np.float64).sum(axis=1)}


def peer(x):
    import torch
    return {"out": torch.sum(x, dim=1)}


def OPS(shape):
    A, B, C = shape["A"], shape["B"], shape["C"]
    return A * B * C, 4 * (A * B * C + A * C)


TEST_SHAPES = [dict(A=1, B=1, C=1), dict(A=3, B=17, C=127), dict(A=5, B=131, C=67), dict(A=2, B=1, C=1031)]
BENCH_SHAPE = dict(A=64, B=512, C=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.sum(dim=1)"
