"""Sigmoid focal loss, mean over all elements (torchvision.ops.sigmoid_focal_loss, alpha 0.25, gamma 2):
logits [N, C] f32, integer class targets [N] i32 (one-hot per row; -1 is background: all zeros);
p = sigmoid(x), ce = BCE-with-logits(x, t), p_t = p t + (1 - p)(1 - t), loss = alpha_t ce (1 - p_t)^gamma
with alpha_t = alpha t + (1 - alpha)(1 - t); one f32 scalar out. N=65536 C=80.
Peer: torch.compile (one_hot, torchvision's formula, mean)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sigmoid_focal_loss(logits: T.In[T.f32, ("N", "C")], targets: T.In[T.i32, ("N",)],
                       loss: T.Out[T.f32, (1,)], alpha: T.f32, gamma: T.f32):
    N, C = logits.shape
    rows, cls = T.domain(0, N), T.domain(0, C)
    x = logits[rows, cls]
    tgt = T.broadcast(targets[rows], over=(rows, cls), dims=[0])
    t = T.where(tgt == T.cast(T.indices(cls), T.i32), 1.0, 0.0, dtype=T.f32)
    p = T.sigmoid(x)
    ce = T.maximum(x, 0.0) - x * t + T.log1p(T.exp(-T.abs(x)))
    p_t = p * t + (1.0 - p) * (1.0 - t)
    alpha_t = alpha * t + (1.0 - alpha) * (1.0 - t)
    terms = alpha_t * ce * (1.0 - p_t) ** gamma
    loss[0] = T.sum(terms) / T.cast(N * C, T.f32)


KERNEL = sigmoid_focal_loss
CONSTEXPRS = {}


def inputs(shape, rng):
    N, C = shape["N"], shape["C"]
    return dict(logits=(2.0 * rng.standard_normal((N, C))).astype(np.float32),
                targets=rng.integers(-1, C, size=N).astype(np.int32),
                alpha=0.25, gamma=2.0)


def reference(logits, targets, alpha, gamma):
    x = logits.astype(np.float64)
    t = (targets[:, None] == np.arange(x.shape[1])[None, :]).astype(np.float64)
    p = 1.0 / (1.0 + np.exp(-x))
    ce = np.maximum(x, 0.0) - x * t + np.log1p(np.exp(-np.abs(x)))
    p_t = p * t + (1 - p) * (1 - t)
    a_t = alpha * t + (1 - alpha) * (1 - t)
    return dict(loss=np.array([(a_t * ce * (1 - p_t) ** gamma).mean()]))


def peer(logits, targets, alpha, gamma):
    import torch
    import torch.nn.functional as F
    C = logits.shape[1]
    t = F.one_hot((targets + 1).long(), C + 1)[:, 1:].to(logits.dtype)   # -1 -> all zeros
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, t, reduction="none")
    p_t = p * t + (1 - p) * (1 - t)
    a_t = alpha * t + (1 - alpha) * (1 - t)
    return dict(loss=(a_t * ce * (1 - p_t) ** gamma).mean().reshape(1))


TEST_SHAPES = [dict(N=1, C=1), dict(N=7, C=3), dict(N=131, C=80), dict(N=1031, C=17)]
BENCH_SHAPE = dict(N=65536, C=80)
TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    N, C = shape["N"], shape["C"]
    return 20 * N * C, 4 * N * C + 4 * N
