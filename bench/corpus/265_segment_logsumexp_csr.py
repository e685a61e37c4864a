"""Log-sum-exp pooling over segments (torch_scatter's scatter_logsumexp, PyG's LSE / softmax
aggregation): rows of x f32 [E, F] grouped into S contiguous segments by CSR offsets i32 [S + 1]
(segment s is rows offsets[s]:offsets[s + 1]; offsets[0] = 0, offsets[S] = E, segments may be empty);
out[s, f] = log(sum over the segment's rows r of exp(x[r, f])), computed stably, and -inf for an empty
segment; out f32 [S, F]. E1048576 F64 S65536. Peer: torch_scatter.scatter_logsumexp (torch:
scatter_reduce amax, then index_add of the exponentials)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def segment_logsumexp(x: T.In[T.f32, ("E", "F")], offsets: T.In[T.i32, ("S1",)], out: T.Out[T.f32, ("S", "F")]):
    # offsets has S + 1 entries (S1 = S + 1)
    E, F = x.shape
    items, feats = T.domain(0, E), T.domain(0, F)
    for s in T.parallel(T.domain(0, out.shape[0])):
        seg = items[offsets[s]:offsets[s + 1]]
        v = x[seg, feats]
        mx = T.max(v, axis=0)
        lse = mx + T.log(T.sum(T.exp(v - mx), axis=0))
        out[s, feats] = T.where(offsets[s + 1] > offsets[s], lse, -math.inf)


KERNEL = segment_logsumexp


def inputs(shape, rng):
    E, F, S = shape["E"], shape["F"], shape["S"]
    assert shape["S1"] == S + 1
    cuts = np.sort(rng.integers(0, E + 1, S - 1))
    return dict(x=(3.0 * rng.standard_normal((E, F))).astype(np.float32),
                offsets=np.concatenate([[0], cuts, [E]]).astype(np.int32))


def reference(x, offsets):
    S = len(offsets) - 1
    out = np.full((S, x.shape[1]), -np.inf)
    for s in range(S):
        v = x[offsets[s]:offsets[s + 1]].astype(np.float64)
        if len(v):
            mx = v.max(axis=0)
            out[s] = mx + np.log(np.exp(v - mx).sum(axis=0))
    return dict(out=out)


def peer(x, offsets):
    import torch
    S = offsets.shape[0] - 1
    seg = torch.repeat_interleave(torch.arange(S, device=x.device), (offsets[1:] - offsets[:-1]).long())
    idx = seg[:, None].expand_as(x)
    mx = torch.full((S, x.shape[1]), -torch.inf, device=x.device).scatter_reduce(0, idx, x, "amax")
    ssum = torch.zeros_like(mx).index_add_(0, seg, torch.exp(x - mx[seg]))
    return dict(out=torch.where(torch.isinf(mx), mx, mx + torch.log(ssum)))


def OPS(shape):
    E, F, S = shape["E"], shape["F"], shape["S"]
    return 4 * E * F, 4 * (E * F + S * F + S + 1)


TEST_SHAPES = [dict(E=1, F=1, S=1, S1=2), dict(E=37, F=5, S=7, S1=8), dict(E=263, F=67, S=41, S1=42),
               dict(E=3, F=2, S=11, S1=12)]
BENCH_SHAPE = dict(E=1048576, F=64, S=65536, S1=65537)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch_scatter.scatter_logsumexp"
