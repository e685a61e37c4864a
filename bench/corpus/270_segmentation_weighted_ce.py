"""Semantic-segmentation loss: class-weighted cross-entropy over an NCHW score map with an ignore label
(F.cross_entropy(logits, target, weight=w, ignore_index=255), reduction "mean", as Cityscapes training
uses it): logits f32 [N, C, H, W] (classes on axis 1), target i64 [N, H, W] (a class in [0, C) or 255),
class weights w f32 [C]; for every pixel whose target t is not 255, its loss is w[t] * (logsumexp over
the classes - logits[n, t, h, w]); loss[0] = the sum of those over the sum of their w[t] (f32 [1]).
N8 C19 H512 W1024. Peer: torch.compile of F.cross_entropy."""
import numpy as np
import tessel
import tessel.language as T

IGNORE = 255


@tessel.kernel
def segmentation_weighted_ce(logits: T.In[T.f32, ("N", "C", "H", "W")], target: T.In[T.i64, ("N", "H", "W")],
                             w: T.In[T.f32, ("C",)], loss: T.Out[T.f32, (1,)]):
    N, C, H, W = logits.shape
    ns, cs, hs, ws = T.domain(0, N), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    x = logits[ns, cs, hs, ws]
    mx = T.max(x, axis=1)
    lse = mx + T.log(T.sum(T.exp(x - mx), axis=1))
    t = target[ns, hs, ws]
    valid = t != IGNORE
    tc = T.where(valid, t, 0, dtype=T.i64)
    picked = logits[ns, tc, hs, ws]
    wt = w[tc]
    num = T.sum(T.where(valid, wt * (lse - picked), 0.0))
    den = T.sum(T.where(valid, wt, 0.0))
    loss[0] = num / den


KERNEL = segmentation_weighted_ce


def inputs(shape, rng):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    target = rng.integers(0, C, (N, H, W)).astype(np.int64)
    target[rng.random((N, H, W)) < 0.1] = IGNORE
    target.reshape(-1)[0] = 0  # at least one labelled pixel
    return dict(logits=(2.0 * rng.standard_normal((N, C, H, W))).astype(np.float32), target=target,
                w=(rng.random(C) + 0.5).astype(np.float32))


def reference(logits, target, w):
    x = logits.astype(np.float64)
    mx = x.max(axis=1)
    lse = mx + np.log(np.exp(x - mx[:, None]).sum(axis=1))
    valid = target != IGNORE
    tc = np.where(valid, target, 0)
    picked = np.take_along_axis(x, tc[:, None], axis=1)[:, 0]
    wt = w[tc].astype(np.float64)
    return dict(loss=np.array([np.where(valid, wt * (lse - picked), 0).sum() / np.where(valid, wt, 0).sum()]))


def peer(logits, target, w):
    import torch.nn.functional as F
    return dict(loss=F.cross_entropy(logits, target, weight=w, ignore_index=IGNORE).reshape(1))


def OPS(shape):
    n = shape["N"] * shape["C"] * shape["H"] * shape["W"]
    return 4 * n, 4 * n + 8 * n // shape["C"]


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1), dict(N=2, C=3, H=5, W=7), dict(N=1, C=19, H=13, W=11)]
BENCH_SHAPE = dict(N=8, C=19, H=512, W=1024)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"
