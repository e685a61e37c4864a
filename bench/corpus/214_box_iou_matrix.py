"""Pairwise box IoU: every box of a [N, 4] f32 set against every box of a [M, 4] set, boxes as
(x1, y1, x2, y2); out [N, M] f32, inter / union, 0 where the union is 0. N=M=4096.
Peer: torch.compile of torchvision.ops.box_iou's formula (with the union-0 guard)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def box_iou_matrix(a: T.In[T.f32, ("N", 4)], b: T.In[T.f32, ("M", 4)], out: T.Out[T.f32, ("N", "M")]):
    N = a.shape[0]
    M = b.shape[0]
    cols = T.domain(0, M)
    bx1, by1, bx2, by2 = b[cols, 0], b[cols, 1], b[cols, 2], b[cols, 3]
    area_b = (bx2 - bx1) * (by2 - by1)
    for i in T.parallel(T.domain(0, N)):
        ax1, ay1, ax2, ay2 = a[i, 0], a[i, 1], a[i, 2], a[i, 3]
        area_a = (ax2 - ax1) * (ay2 - ay1)
        iw = T.maximum(T.minimum(bx2, ax2) - T.maximum(bx1, ax1), 0.0)
        ih = T.maximum(T.minimum(by2, ay2) - T.maximum(by1, ay1), 0.0)
        inter = iw * ih
        union = area_a + area_b - inter
        out[i, cols] = T.where(union > 0.0, inter / union, 0.0)


KERNEL = box_iou_matrix
CONSTEXPRS = {}


def _boxes(n, rng):
    xy = rng.uniform(0.0, 10.0, size=(n, 2))
    wh = rng.uniform(0.0, 4.0, size=(n, 2))
    wh[rng.random(n) < 0.1] = 0.0                    # some degenerate (point) boxes: union 0 between two
    return np.concatenate([xy, xy + wh], axis=1).astype(np.float32)


def inputs(shape, rng):
    a, b = _boxes(shape["N"], rng), _boxes(shape["M"], rng)
    if shape["N"] > 1 and shape["M"] > 1:
        b[1] = a[0]                                  # an exact match (IoU 1)
        a[1] = b[0] = np.array([3.0, 3.0, 3.0, 3.0], np.float32)   # two equal points: union 0
    return dict(a=a, b=b)


def reference(a, b):
    a, b = a.astype(np.float64), b.astype(np.float64)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0.0, None)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return dict(out=np.where(union > 0, inter / union, 0.0))


def peer(a, b):
    import torch
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    return dict(out=torch.where(union > 0, inter / union, torch.zeros_like(union)))


TEST_SHAPES = [dict(N=1, M=1), dict(N=3, M=7), dict(N=17, M=131), dict(N=67, M=1031)]
BENCH_SHAPE = dict(N=4096, M=4096)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    N, M = shape["N"], shape["M"]
    return 14 * N * M, 16 * (N + M) + 4 * N * M
