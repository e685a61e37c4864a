"""Weighted histogram (weighted bincount): out[bins[i]] += w[i] for i in [0, n), bins int32 in
[0, NB), w f32, out [NB] f32 accumulated in place. n = 16M, NB = 4096. The sums depend on the order
only by rounding. Peer: torch.bincount(bins, weights=w, minlength=NB)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def weighted_histogram(bins: T.In[T.i32, ("N",), T.Range(0, "NB")], w: T.In[T.f32, ("N",)],
                       out: T.InOut[T.f32, ("NB",)]):
    N, = bins.shape
    items = T.domain(0, N)
    T.scatter_reduce(out, (bins[items],), w[items], combine="add")


KERNEL = weighted_histogram
CONSTEXPRS = {}


def inputs(shape, rng):
    N, NB = shape["N"], shape["NB"]
    # skewed bins (some hot, some never hit) and signed weights
    bins = np.minimum(rng.geometric(min(3.0 / NB, 1.0), size=N) - 1, NB - 1).astype(np.int32)
    return dict(bins=bins, w=rng.standard_normal(N).astype(np.float32),
                out=rng.standard_normal(NB).astype(np.float32))


def reference(bins, w, out):
    return dict(out=out.astype(np.float64) + np.bincount(bins, weights=w.astype(np.float64),
                                                         minlength=out.shape[0]))


def peer(bins, w, out):
    import torch
    out += torch.bincount(bins, weights=w, minlength=out.shape[0]).to(out.dtype)
    return dict(out=out)


TEST_SHAPES = [dict(N=1, NB=1), dict(N=7, NB=3), dict(N=1031, NB=17), dict(N=20011, NB=257)]
BENCH_SHAPE = dict(N=16 * 1024 * 1024, NB=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-3)
PEER = "torch.bincount(weights=w)"


def OPS(shape):
    return shape["N"], 8 * shape["N"] + 8 * shape["NB"]
