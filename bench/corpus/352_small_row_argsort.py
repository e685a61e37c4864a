"""Small-row argsort (sorting the 64 candidates of each row: per-token expert scores, beam candidates, a
tile of a blocked sort): x f32 [M, 64]; per row, the indices that sort it ascending, stable (equal values keep
the lower index first), i32 [M, 64]. M 2^18. Peer: torch.compile(torch.sort(stable=True) indices)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def small_row_argsort(x: T.In[T.f32, ("M", 64)], idx: T.Out[T.i32, ("M", 64)]):
    M = x.shape[0]
    cols = T.domain(0, 64)
    pos = T.indices(cols)
    pi = T.broadcast(pos, over=(cols, cols), dims=[0])
    pj = T.broadcast(pos, over=(cols, cols), dims=[1])
    for m in T.parallel(T.domain(0, M)):
        v = x[m, cols]
        vi = T.broadcast(v, over=(cols, cols), dims=[0])
        vj = T.broadcast(v, over=(cols, cols), dims=[1])
        before = (vj < vi) | ((vj == vi) & (pj < pi))          # element j sorts before element i
        rank = T.sum(T.cast(before, T.i32), axis=1)            # i's place in the sorted row
        idx[m, rank] = T.cast(pos, T.i32)


KERNEL = small_row_argsort


def inputs(shape, rng):
    M = shape["M"]
    x = rng.standard_normal((M, 64))
    x[::2] = np.round(x[::2] * 2.0)                            # every other row: many ties
    return dict(x=x.astype(np.float32))


def reference(x):
    return dict(idx=np.argsort(x, axis=1, kind="stable").astype(np.int32))


def peer(x):
    import torch
    return dict(idx=torch.sort(x, dim=1, stable=True).indices.to(torch.int32))


def OPS(shape):
    M = shape["M"]
    return M * 64 * 6, 8 * M * 64


TEST_SHAPES = [dict(M=0), dict(M=1), dict(M=7), dict(M=37)]
BENCH_SHAPE = dict(M=2 ** 18)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"
