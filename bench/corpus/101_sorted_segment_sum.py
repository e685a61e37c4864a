"""Sorted segment sum: x [N, D] f32 and segment ids [N] int32 sorted ascending in [0, S) (some segments
empty); out[s, :] = sum of the rows of x whose id is s ([S, D] f32, zeros for empty segments).
Written as torch's index_add_: zero the output, then a scatter-add of every row into its segment.
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sorted_segment_sum(x: T.In[T.f32, ("N", "D")], ids: T.In[T.i32, ("N",), T.Range(0, "S")],
                       out: T.InOut[T.f32, ("S", "D")]):
    N, D = x.shape
    S = out.shape[0]
    rows, dims = T.domain(0, N), T.domain(0, D)
    out[T.domain(0, S), dims] = 0.0
    seg = T.index_relation(ids, rows)
    T.scatter_reduce(out, (seg, dims), x[rows, dims], combine="add")


KERNEL = sorted_segment_sum


def inputs(shape, rng):
    N, D, S = shape["N"], shape["D"], shape["S"]
    ids = np.sort(rng.integers(0, S, N)).astype(np.int32)
    # out is written by the kernel (zeros first): start it with garbage so an unwritten segment shows
    return dict(x=rng.standard_normal((N, D)).astype(np.float32), ids=ids,
                out=rng.standard_normal((S, D)).astype(np.float32))


def reference(x, ids, out):
    res = np.zeros(out.shape, np.float64)
    np.add.at(res, ids, x.astype(np.float64))
    return {"out": res}


def peer(x, ids, out):
    import torch
    return {"out": torch.zeros(out.shape, dtype=x.dtype, device=x.device).index_add_(0, ids, x)}


TEST_SHAPES = [dict(N=1, D=1, S=1), dict(N=1, D=3, S=5), dict(N=37, D=7, S=11), dict(N=211, D=64, S=97)]
BENCH_SHAPE = dict(N=1 << 20, D=64, S=65536)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "eager"


def OPS(shape):
    N, D, S = shape["N"], shape["D"], shape["S"]
    return N * D, N * D * 4 + N * 4 + S * D * 4
