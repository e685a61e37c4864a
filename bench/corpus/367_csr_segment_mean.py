"""Segment mean over CSR row offsets (torch_scatter's segment_csr(reduce="mean"), a GNN's mean
aggregation over sorted edges): values f32 [NNZ, F], offsets i64 [S + 1] (non-decreasing, offsets[0] = 0,
offsets[S] = NNZ); out[s, f] = mean of values[offsets[s]:offsets[s + 1], f], and 0 for an empty segment.
out f32 [S, F]. S16384 NNZ1048576 F128 (uniform random cut points: lengths
about exponential, mean 64, some empty). Peer: torch.compile of
index_add_ over the segment ids (repeat_interleave of the lengths) divided by the lengths clamped to 1."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def csr_segment_mean(values: T.In[T.f32, ("NNZ", "F")], offsets: T.In[T.i64, ("S1",)],
                     out: T.Out[T.f32, ("S", "F")]):
    NNZ, F = values.shape
    S = out.shape[0]
    items, feats = T.domain(0, NNZ), T.domain(0, F)
    for s in T.parallel(T.domain(0, S)):
        lo, hi = offsets[s], offsets[s + 1]
        total = T.sum(values[items[lo:hi], feats], axis=0)
        count = T.cast(hi - lo, T.f32)
        out[s, feats] = total / T.maximum(count, 1.0)


KERNEL = csr_segment_mean


def inputs(shape, rng):
    S, NNZ, F = shape["S"], shape["NNZ"], shape["F"]
    assert shape["S1"] == S + 1
    cuts = np.sort(rng.integers(0, NNZ + 1, max(S - 1, 0)))
    offsets = np.concatenate([[0], cuts, [NNZ]]) if S else np.zeros(1)
    if S > 2:                                                       # an empty segment, for sure
        offsets[2] = offsets[1]
    return dict(values=rng.standard_normal((NNZ, F)).astype(np.float32), offsets=offsets.astype(np.int64))


def reference(values, offsets):
    S = len(offsets) - 1
    out = np.zeros((S, values.shape[1]))
    for s in range(S):
        lo, hi = int(offsets[s]), int(offsets[s + 1])
        if hi > lo:
            out[s] = values[lo:hi].astype(np.float64).mean(axis=0)
    return dict(out=out)


def peer(values, offsets):
    import torch
    S = offsets.shape[0] - 1
    lengths = offsets[1:] - offsets[:-1]
    ids = torch.repeat_interleave(torch.arange(S, device=values.device), lengths, output_size=values.shape[0])
    sums = torch.zeros(S, values.shape[1], dtype=values.dtype, device=values.device).index_add_(0, ids, values)
    return dict(out=sums / lengths.clamp(min=1).to(values.dtype)[:, None])


def OPS(shape):
    S, NNZ, F = shape["S"], shape["NNZ"], shape["F"]
    return NNZ * F + S * F, 4 * NNZ * F + 8 * (S + 1) + 4 * S * F


TEST_SHAPES = [dict(S=0, S1=1, NNZ=0, F=3), dict(S=1, S1=2, NNZ=1, F=1), dict(S=5, S1=6, NNZ=0, F=7),
               dict(S=7, S1=8, NNZ=131, F=5), dict(S=37, S1=38, NNZ=1031, F=67)]
BENCH_SHAPE = dict(S=16384, S1=16385, NNZ=1048576, F=128)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"
