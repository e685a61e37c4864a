"""Soft Dice loss on sigmoid logits for segmentation (MONAI DiceLoss(sigmoid=True, smooth 1e-5),
mean over the batch): per sample n, p = sigmoid(x[n]) over all channels and pixels, dice[n] = (2 *
sum(p * t[n]) + 1e-5) / (sum(p) + sum(t[n]) + 1e-5), and loss[0] = mean over n of (1 - dice[n]). Logits
and targets (0/1) f32 [N, C, H, W]. N8 C4 H512 W512. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T

SMOOTH = 1e-5


@tessel.kernel
def dice_loss(x: T.In[T.f32, ("N", "C", "H", "W")], target: T.In[T.f32, ("N", "C", "H", "W")],
              loss: T.Out[T.f32, (1,)]):
    N, C, H, W = x.shape
    ns, cs, hs, ws = T.domain(0, N), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    p = T.sigmoid(x[ns, cs, hs, ws])
    t = target[ns, cs, hs, ws]
    inter = T.sum(p * t, axis=(1, 2, 3))
    denom = T.sum(p, axis=(1, 2, 3)) + T.sum(t, axis=(1, 2, 3))
    dice = (2.0 * inter + SMOOTH) / (denom + SMOOTH)
    loss[0] = T.sum(1.0 - dice) / T.cast(N, T.f32)


KERNEL = dice_loss


def inputs(shape, rng):
    s = (shape["N"], shape["C"], shape["H"], shape["W"])
    return dict(x=(2.0 * rng.standard_normal(s)).astype(np.float32), target=(rng.random(s) < 0.3).astype(np.float32))


def reference(x, target):
    p = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    ax = (1, 2, 3)
    dice = (2.0 * (p * target).sum(ax) + SMOOTH) / (p.sum(ax) + target.sum(ax) + SMOOTH)
    return dict(loss=np.array([(1.0 - dice).mean()]))


def peer(x, target):
    import torch
    p = torch.sigmoid(x)
    ax = (1, 2, 3)
    dice = (2.0 * (p * target).sum(ax) + SMOOTH) / (p.sum(ax) + target.sum(ax) + SMOOTH)
    return dict(loss=(1.0 - dice).mean().reshape(1))


def OPS(shape):
    n = shape["N"] * shape["C"] * shape["H"] * shape["W"]
    return 8 * n, 8 * n


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1), dict(N=2, C=3, H=5, W=7), dict(N=3, C=2, H=13, W=31)]
BENCH_SHAPE = dict(N=8, C=4, H=512, W=512)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"
