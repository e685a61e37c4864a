"""Segmented cumulative sum: each row of x is split into contiguous segments by a (per-row,
non-decreasing) segment-id array; the inclusive running sum restarts at every segment boundary."""
import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def seg_add(ia: T.i32, va: T.f32, ib: T.i32, vb: T.f32):
    # (segment id of the last element, running sum of its segment so far); id -1 is the empty prefix
    empty_b = ib == -1
    v = T.where(ia == ib, va + vb, vb)
    return T.where(empty_b, ia, ib), T.where(empty_b, va, v)


@tessel.kernel
def segmented_cumsum(x: T.In[T.f32, ("M", "N")],
                     seg: T.In[T.i32, ("M", "N")],
                     y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        ids = seg[m, cols]
        vals = x[m, cols]
        _, sums = T.scan((ids, vals), axis=0, identity=(-1, 0.0), combine=seg_add)
        y[m, cols] = sums


KERNEL = segmented_cumsum
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    x = rng.standard_normal((M, N)).astype(np.float32)
    # segment starts with probability ~1/8; ids non-decreasing along each row
    starts = rng.random((M, N)) < 0.125
    starts[:, 0] = False
    seg = np.cumsum(starts, axis=1).astype(np.int32)
    return {"x": x, "seg": seg}


def reference(x, seg):
    x64 = x.astype(np.float64)
    y = np.empty_like(x64)
    M, N = x.shape
    for m in range(M):
        acc = 0.0
        for n in range(N):
            if n > 0 and seg[m, n] != seg[m, n - 1]:
                acc = 0.0
            acc += x64[m, n]
            y[m, n] = acc
    return {"y": y.astype(np.float32)}


def peer(x, seg):
    import torch
    N = x.shape[-1]
    cs = torch.cumsum(x, dim=-1)
    excl = cs - x
    pos = torch.arange(N, device=x.device).expand_as(x)
    start = torch.ones_like(seg, dtype=torch.bool)
    start[:, 1:] = seg[:, 1:] != seg[:, :-1]
    first = torch.where(start, pos, torch.zeros_like(pos)).cummax(dim=-1).values
    return {"y": cs - torch.gather(excl, -1, first)}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=5, N=1031), dict(M=2, N=4099)]
BENCH_SHAPE = dict(M=4096, N=8192)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
BENCH_TOLERANCE = dict(rtol=1e-3, atol=1e-2)   # the peer subtracts f32 prefix sums over long rows
PEER = "torch reference (cumsum minus segment-start prefix)"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return M * N, M * N * (4 + 4 + 4)
