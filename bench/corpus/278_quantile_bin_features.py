"""Feature binning for histogram gradient boosting (XGBoost's / LightGBM's GPU quantile sketch
applied to the data): each feature f has NB sorted cut points cuts[f, :] (f32), and
bins[n, f] = the number of cut points <= x[n, f] (torch.bucketize(x, cuts, right=True)), i32 [N, F];
NaN features (missing values) fall past every cut (bin NB, as the reference's searchsorted puts them).
x f32 [N, F]. N=1M rows, F=128 features, NB=255 cuts. Peer: torch.searchsorted on the transposed
matrix (torch.compile falls back to it)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def quantile_bin_features(x: T.In[T.f32, ("N", "F")], cuts: T.In[T.f32, ("F", "NB")],
                          bins: T.Out[T.i32, ("N", "F")]):
    N, F = x.shape
    NB = cuts.shape[1]
    feats, cs = T.domain(0, F), T.domain(0, NB)
    for n in T.parallel(T.domain(0, N)):
        v = x[n, feats]
        past = (cuts[feats, cs] <= v) | (v != v)
        bins[n, feats] = T.sum(T.cast(past, T.i32), axis=1)


KERNEL = quantile_bin_features


def inputs(shape, rng):
    N, F, NB = shape["N"], shape["F"], shape["NB"]
    x = rng.standard_normal((N, F)).astype(np.float32)
    cuts = np.sort(rng.standard_normal((F, NB)), axis=1).astype(np.float32)
    if N and F and NB:
        x[0, 0] = cuts[0, NB // 2]                         # exactly on a cut: counted (right=True)
        x[N // 2, F - 1] = np.nan                           # a missing value
    return dict(x=x, cuts=cuts)


def reference(x, cuts):
    out = np.zeros(x.shape, dtype=np.int32)
    for f in range(x.shape[1]):
        out[:, f] = np.searchsorted(cuts[f], x[:, f], side="right")
    return dict(bins=out)


def peer(x, cuts):
    import torch
    bins = torch.searchsorted(cuts, x.T.contiguous(), right=True, out_int32=True).T
    # CUDA's searchsorted puts a NaN at bin 0 (the CPU's and NumPy's past every cut): the
    # docstring's rule, as a user of the peer writes it (measured H100, session 42).
    return dict(bins=torch.where(x.isnan(), cuts.shape[1], bins).to(torch.int32))


def OPS(shape):
    N, F, NB = shape["N"], shape["F"], shape["NB"]
    return N * F * NB, 8 * N * F + 4 * F * NB


TEST_SHAPES = [dict(N=1, F=1, NB=1), dict(N=5, F=3, NB=7), dict(N=67, F=13, NB=31),
               dict(N=0, F=3, NB=7)]   # the last: no rows (check.py; CI runs the second)
BENCH_SHAPE = dict(N=1_048_576, F=128, NB=255)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch.searchsorted"
