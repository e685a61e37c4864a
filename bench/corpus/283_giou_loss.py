"""Generalized IoU loss of matched box pairs (DETR / YOLO box regression, torchvision's
generalized_box_iou_loss with reduction "mean"): for predicted and target boxes (x1, y1, x2, y2) in rows
of pred and target f32 [N, 4], iou = inter / union with union = area_p + area_t - inter, the smallest
enclosing box's area c, giou = iou - (c - union) / c (torchvision adds eps = 1e-7 to union and c), and
loss[0] = mean over the N pairs of 1 - giou. N=524288 (YOLO's 8400 anchors x 64 images, rounded).
Peer: torch.compile of torchvision.ops.generalized_box_iou_loss."""
import numpy as np
import tessel
import tessel.language as T

EPS = 1e-7


@tessel.kernel
def giou_loss(pred: T.In[T.f32, ("N", 4)], target: T.In[T.f32, ("N", 4)], loss: T.Out[T.f32, (1,)]):
    N = pred.shape[0]
    boxes = T.domain(0, N)
    px1, py1, px2, py2 = pred[boxes, 0], pred[boxes, 1], pred[boxes, 2], pred[boxes, 3]
    tx1, ty1, tx2, ty2 = target[boxes, 0], target[boxes, 1], target[boxes, 2], target[boxes, 3]
    iw = T.maximum(T.minimum(px2, tx2) - T.maximum(px1, tx1), 0.0)
    ih = T.maximum(T.minimum(py2, ty2) - T.maximum(py1, ty1), 0.0)
    inter = iw * ih
    union = (px2 - px1) * (py2 - py1) + (tx2 - tx1) * (ty2 - ty1) - inter
    iou = inter / (union + EPS)
    cw = T.maximum(px2, tx2) - T.minimum(px1, tx1)
    ch = T.maximum(py2, ty2) - T.minimum(py1, ty1)
    c = cw * ch
    giou = iou - (c - union) / (c + EPS)
    loss[0] = T.sum(1.0 - giou) / T.cast(N, T.f32)


KERNEL = giou_loss


def _boxes(rng, n):
    xy = rng.random((n, 2)) * 600.0
    wh = rng.random((n, 2)) * 100.0 + 1.0
    return np.concatenate([xy, xy + wh], axis=1)


def inputs(shape, rng):
    N = shape["N"]
    t = _boxes(rng, N)
    p = t + rng.standard_normal((N, 4)) * 10.0
    p[:, 2:] = np.maximum(p[:, 2:], p[:, :2] + 0.5)       # valid boxes (x2 > x1, y2 > y1)
    if N > 2:
        p[1] = _boxes(rng, 1)[0] + 2000.0                  # no overlap: giou < 0
    return dict(pred=p.astype(np.float32), target=t.astype(np.float32))


def reference(pred, target):
    p, t = pred.astype(np.float64), target.astype(np.float64)
    iw = np.maximum(np.minimum(p[:, 2], t[:, 2]) - np.maximum(p[:, 0], t[:, 0]), 0.0)
    ih = np.maximum(np.minimum(p[:, 3], t[:, 3]) - np.maximum(p[:, 1], t[:, 1]), 0.0)
    inter = iw * ih
    union = (p[:, 2] - p[:, 0]) * (p[:, 3] - p[:, 1]) + (t[:, 2] - t[:, 0]) * (t[:, 3] - t[:, 1]) - inter
    iou = inter / (union + EPS)
    c = (np.maximum(p[:, 2], t[:, 2]) - np.minimum(p[:, 0], t[:, 0])) * \
        (np.maximum(p[:, 3], t[:, 3]) - np.minimum(p[:, 1], t[:, 1]))
    giou = iou - (c - union) / (c + EPS)
    return dict(loss=np.array([(1.0 - giou).mean()]))


def peer(pred, target):
    from torchvision.ops import generalized_box_iou_loss
    return dict(loss=generalized_box_iou_loss(pred, target, reduction="mean").reshape(1))


def OPS(shape):
    return 30 * shape["N"], 32 * shape["N"]


TEST_SHAPES = [dict(N=1), dict(N=37), dict(N=1031)]
BENCH_SHAPE = dict(N=524288)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"
