"""Permute [B, S, H, D] -> [B, H, S, D] (bf16), as x.permute(0, 2, 1, 3).contiguous()."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def permute_bshd(x: T.In[T.bf16, ("B", "S", "H", "D")],
                 y: T.Out[T.bf16, ("B", "H", "S", "D")]):
    B, S, H, D = x.shape
    seq = T.domain(0, S)
    dims = T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        y[b, h, seq, dims] = x[b, seq, h, dims]


KERNEL = permute_bshd
CONSTEXPRS = {}


def inputs(shape, rng):
    B, S, H, D = shape["B"], shape["S"], shape["H"], shape["D"]
    return {"x": rng.standard_normal((B, S, H, D)).astype(np.float32)}


def reference(x):
    return {"y": np.ascontiguousarray(x.transpose(0, 2, 1, 3))}


def peer(x):
    return {"y": x.permute(0, 2, 1, 3).contiguous()}


TEST_SHAPES = [dict(B=1, S=1, H=1, D=1), dict(B=2, S=17, H=3, D=13),
               dict(B=1, S=131, H=5, D=64), dict(B=3, S=67, H=2, D=128)]
BENCH_SHAPE = dict(B=8, S=4096, H=32, D=128)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch .permute(0, 2, 1, 3).contiguous()"


def OPS(shape):
    n = shape["B"] * shape["S"] * shape["H"] * shape["D"]
    return 0, 2 * n * 2
