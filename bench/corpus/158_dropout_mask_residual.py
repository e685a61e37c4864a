"""Dropout with a given keep mask and scaling then residual add: out = x * mask / (1 - p) + res, x and res bf16 [M, N], mask bool/uint8 [M, N], p runtime f32. M16384 N4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def dropout_mask_residual(x: T.In[T.bf16, ("M", "N")], mask: T.In[T.bool_, ("M", "N")],
                          res: T.In[T.bf16, ("M", "N")], out: T.Out[T.bf16, ("M", "N")], p: T.f32):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    xf = T.cast(x[rows, cols], T.f32)
    keep = T.cast(mask[rows, cols], T.f32)
    out[rows, cols] = T.cast(xf * keep / (1.0 - p) + T.cast(res[rows, cols], T.f32), T.bf16)


KERNEL = dropout_mask_residual


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    p = 0.1
    return dict(x=rng.standard_normal((M, N)).astype(np.float32),
                mask=rng.random((M, N)) >= p,
                res=rng.standard_normal((M, N)).astype(np.float32), p=p)


def reference(x, mask, res, p):
    out = x.astype(np.float64) * mask / (1.0 - np.float64(np.float32(p))) + res
    return {"out": _bf16(out.astype(np.float32))}


def peer(x, mask, res, p):
    return {"out": x * mask / (1 - p) + res}


def OPS(shape):
    n = shape["M"] * shape["N"]
    return 3 * n, 7 * n


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
