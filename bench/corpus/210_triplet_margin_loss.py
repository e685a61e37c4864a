"""Triplet margin loss: mean over rows of max(0, ||a - p||_2 - ||a - n||_2 + margin), margin = 1.0, for
anchor, positive, negative [N, D] f32; one f32 scalar. N=65536 D=512. Peer: torch.compile of
F.triplet_margin_loss (which adds eps = 1e-6 to the differences)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def triplet_margin_loss(anchor: T.In[T.f32, ("N", "D")], positive: T.In[T.f32, ("N", "D")],
                        negative: T.In[T.f32, ("N", "D")], loss: T.Out[T.f32, (1,)], margin: T.f32):
    N, D = anchor.shape
    rows, dims = T.domain(0, N), T.domain(0, D)
    a = anchor[rows, dims]
    dp = a - positive[rows, dims]
    dn = a - negative[rows, dims]
    d_pos = T.sqrt(T.sum(dp * dp, axis=1))
    d_neg = T.sqrt(T.sum(dn * dn, axis=1))
    per_row = T.maximum(d_pos - d_neg + margin, 0.0)
    loss[0] = T.sum(per_row) / T.cast(N, T.f32)


KERNEL = triplet_margin_loss
CONSTEXPRS = {}


def inputs(shape, rng):
    N, D = shape["N"], shape["D"]
    a = rng.standard_normal((N, D)).astype(np.float32)
    # positives near the anchor, negatives a little farther: a mix of active and inactive rows
    p = (a + 0.6 * rng.standard_normal((N, D))).astype(np.float32)
    n = (a + 0.8 * rng.standard_normal((N, D))).astype(np.float32)
    return dict(anchor=a, positive=p, negative=n, margin=1.0)


def reference(anchor, positive, negative, margin):
    a, p, n = (t.astype(np.float64) for t in (anchor, positive, negative))
    dp = np.sqrt(((a - p) ** 2).sum(axis=1))
    dn = np.sqrt(((a - n) ** 2).sum(axis=1))
    return dict(loss=np.array([np.maximum(dp - dn + margin, 0.0).mean()]))


def peer(anchor, positive, negative, margin):
    import torch.nn.functional as F
    return dict(loss=F.triplet_margin_loss(anchor, positive, negative, margin=margin).reshape(1))


TEST_SHAPES = [dict(N=1, D=1), dict(N=3, D=127), dict(N=17, D=1031), dict(N=257, D=64)]
BENCH_SHAPE = dict(N=65536, D=512)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    N, D = shape["N"], shape["D"]
    return 6 * N * D, 3 * 4 * N * D
