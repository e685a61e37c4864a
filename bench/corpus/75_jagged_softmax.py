"""Jagged softmax: B rows of different lengths packed end to end, values [total] f32 with offsets [B+1]
(i32; row b is values[offsets[b]:offsets[b+1]], rows may be empty); out [total] f32 is the softmax
within each row. B=65536 rows of 0..511 elements (average 256). Peer: torch (loop-free, scatter/segment
ops) under torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def jagged_softmax(values: T.In[T.f32, ("TOT",)], offsets: T.In[T.i32, ("B1",)],
                   out: T.Out[T.f32, ("TOT",)]):
    TOT = values.shape[0]
    B = offsets.shape[0] - 1
    items = T.domain(0, TOT)
    for b in T.parallel(T.domain(0, B)):
        row = items[offsets[b]:offsets[b + 1]]        # may be empty
        v = values[row]
        e = T.exp(v - T.max(v))
        out[row] = e / T.sum(e)


KERNEL = jagged_softmax
CONSTEXPRS = {}


def _lengths(B, TOT, rng):
    """B lengths in 0..511 summing to TOT, with an empty row, a 1-element row and (when TOT allows) a
    511-element row among them."""
    assert 0 <= TOT <= 511 * B
    fixed = []
    if B >= 3 and TOT >= 512:
        fixed = [0, 1, 511]
    elif B >= 2 and TOT >= 1:
        fixed = [0, 1]
    rest_n, rest_t = B - len(fixed), TOT - sum(fixed)
    lens = np.zeros(rest_n, np.int64)
    if rest_n:
        # spread rest_t over rest_n rows, capped at 511
        w = rng.dirichlet(np.full(rest_n, 1.0))
        lens = np.minimum(np.floor(w * rest_t).astype(np.int64), 511)
        i = 0
        while lens.sum() < rest_t:
            if lens[i % rest_n] < 511:
                lens[i % rest_n] += 1
            i += 1
    lens = np.concatenate([np.array(fixed, np.int64), lens])
    rng.shuffle(lens)
    assert lens.sum() == TOT and lens.max(initial=0) <= 511
    return lens


def inputs(shape, rng):
    B, TOT = shape["B1"] - 1, shape["TOT"]
    lens = _lengths(B, TOT, rng)
    return dict(values=(3.0 * rng.standard_normal(TOT)).astype(np.float32),
                offsets=np.concatenate([[0], np.cumsum(lens)]).astype(np.int32))


def reference(values, offsets):
    v = values.astype(np.float64)
    out = np.zeros_like(v)
    for b in range(offsets.shape[0] - 1):
        lo, hi = offsets[b], offsets[b + 1]
        if hi > lo:
            e = np.exp(v[lo:hi] - v[lo:hi].max())
            out[lo:hi] = e / e.sum()
    return dict(out=out)


def peer(values, offsets):
    import torch
    B = offsets.numel() - 1
    lens = (offsets[1:] - offsets[:-1]).long()
    seg = torch.repeat_interleave(torch.arange(B, device=values.device), lens, output_size=values.numel())
    mx = torch.full((B,), float("-inf"), device=values.device, dtype=values.dtype)
    mx = mx.scatter_reduce(0, seg, values, reduce="amax", include_self=True)
    e = torch.exp(values - mx[seg])
    den = torch.zeros(B, device=values.device, dtype=values.dtype).index_add_(0, seg, e)
    return dict(out=e / den[seg])


def _shape(B, TOT):
    return dict(B1=B + 1, TOT=TOT)


TEST_SHAPES = [_shape(1, 1), _shape(2, 1), _shape(7, 131), _shape(13, 1031), _shape(5, 1500),
               _shape(3, 512)]
BENCH_SHAPE = _shape(65536, 65536 * 256)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch scatter_reduce(amax) + index_add_ over repeat_interleave segment ids, under torch.compile"


def OPS(shape):
    TOT = shape["TOT"]
    return 4 * TOT, 2 * 4 * TOT + 4 * shape["B1"]
