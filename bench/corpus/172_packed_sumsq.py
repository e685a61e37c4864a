"""Sum of squares of all elements of several tensors given as one packed buffer with offsets (global grad-norm over a list): x f32 [total], offs int64 [T+1], out f32 [T] (per-tensor sums of squares). total 2^26, T 200 tensors of random sizes. Peer: torch._foreach_norm or a loop of torch.sum(x**2)."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def packed_sumsq(x: T.In[T.f32, ("TOTAL",)], offs: T.In[T.i64, ("T1",)], out: T.Out[T.f32, ("T",)]):
    elems = T.domain(0, x.shape[0])
    for t in T.parallel(T.domain(0, out.shape[0])):
        v = x[elems[offs[t]:offs[t + 1]]]
        out[t] = T.sum(v * v)


KERNEL = packed_sumsq


def inputs(shape, rng):
    TOTAL, NT = shape["TOTAL"], shape["T"]
    assert shape["T1"] == NT + 1
    cuts = np.sort(rng.integers(0, TOTAL + 1, NT - 1))               # sizes may be 0
    offs = np.concatenate([[0], cuts, [TOTAL]]).astype(np.int64)
    return dict(x=rng.standard_normal(TOTAL).astype(np.float32), offs=offs)


def reference(x, offs):
    x64 = x.astype(np.float64)
    return dict(out=np.array([(x64[offs[t]:offs[t + 1]] ** 2).sum() for t in range(len(offs) - 1)], dtype=np.float32))


def peer(x, offs):
    sizes = (offs[1:] - offs[:-1]).tolist()
    norms = torch._foreach_norm(list(torch.split(x, sizes)))
    return dict(out=torch.stack(norms) ** 2)


TEST_SHAPES = [dict(TOTAL=1, T=1, T1=2), dict(TOTAL=127, T=5, T1=6), dict(TOTAL=10007, T=13, T1=14)]
BENCH_SHAPE = dict(TOTAL=2 ** 26, T=200, T1=201)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch._foreach_norm (squared)"
