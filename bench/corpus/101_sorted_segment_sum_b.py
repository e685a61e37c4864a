"""Sorted segment sum: x [N, D] f32 and segment ids [N] int32 sorted ascending in [0, S) (some segments
empty); out[s, :] = sum of the rows of x whose id is s ([S, D] f32, zeros for empty segments).
Second spelling, using the sort: each segment finds its row range [lower_bound(s), lower_bound(s + 1)) by a
binary search over ids (torch.searchsorted), then sums that range of rows (an empty range sums to 0).
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sorted_segment_sum_b(x: T.In[T.f32, ("N", "D")], ids: T.In[T.i32, ("N",), T.Range(0, "S")],
                         out: T.Out[T.f32, ("S", "D")]):
    N, D = x.shape
    S = out.shape[0]
    rows, dims = T.domain(0, N), T.domain(0, D)

    def lower_bound(target):
        """The first position p in [0, N] with ids[p] >= target (ids sorted ascending)."""
        lo, hi = T.index(0), N
        for _ in T.domain(0, 32):               # 32 halvings cover any i32-indexed N
            if lo < hi:
                mid = (lo + hi) // 2
                if ids[mid] < target:
                    lo = mid + 1
                else:
                    hi = mid
        return lo

    for s in T.parallel(T.domain(0, S)):
        seg = T.cast(s, T.i32)
        mine = rows[lower_bound(seg):lower_bound(seg + 1)]
        out[s, dims] = T.sum(x[mine, dims], axis=0)


KERNEL = sorted_segment_sum_b


# reference() and peer() see only the inputs, and S (the extent of the Out view) is not one of them:
# inputs() records it (README.md's contract has no way to pass an Out-only extent)
_S = [None]


def inputs(shape, rng):
    N, D, S = shape["N"], shape["D"], shape["S"]
    _S[0] = S
    ids = np.sort(rng.integers(0, S, N)).astype(np.int32)
    return dict(x=rng.standard_normal((N, D)).astype(np.float32), ids=ids)


def reference(x, ids):
    S = _S[0]
    res = np.zeros((S, x.shape[1]), np.float64)
    np.add.at(res, ids, x.astype(np.float64))
    return {"out": res}


def peer(x, ids):
    import torch
    S = _S[0]
    return {"out": torch.zeros(S, x.shape[1], dtype=x.dtype, device=x.device).index_add_(0, ids, x)}


TEST_SHAPES = [dict(N=1, D=1, S=1), dict(N=1, D=3, S=5), dict(N=37, D=7, S=11), dict(N=131, D=33, S=29)]
BENCH_SHAPE = dict(N=1 << 20, D=64, S=65536)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "eager"


def OPS(shape):
    N, D, S = shape["N"], shape["D"], shape["S"]
    return N * D, N * D * 4 + N * 4 + S * D * 4
