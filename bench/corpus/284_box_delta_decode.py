"""Box decoding for detection heads (torchvision's BoxCoder.decode_single as Faster R-CNN's RPN and
ROI heads run it, then clip_boxes_to_image): for anchors (x1, y1, x2, y2) and regression deltas
(dx, dy, dw, dh) in rows of anchors and deltas f32 [N, 4], with weights (wx, wy, ww, wh) = (1, 1, 1, 1)
for the RPN, w = x2 - x1, cx = x1 + w / 2 (likewise h, cy), dw and dh clamped to log(1000 / 16),
pcx = dx * w + cx, pw = exp(dw) * w (likewise y, h), and the box (pcx - pw / 2, pcy - ph / 2,
pcx + pw / 2, pcy + ph / 2) clipped to the image, x to [0, width] and y to [0, height] (runtime f32):
boxes f32 [N, 4]. N=3_145_728 (16 images x 196608 anchors). Peer: torch.compile of torchvision's
decode + clip."""
import math

import numpy as np
import tessel
import tessel.language as T

CLIP = math.log(1000.0 / 16)


@tessel.kernel
def box_delta_decode(anchors: T.In[T.f32, ("N", 4)], deltas: T.In[T.f32, ("N", 4)],
                     boxes: T.Out[T.f32, ("N", 4)], width: T.f32, height: T.f32):
    N = anchors.shape[0]
    rows = T.domain(0, N)
    x1, y1, x2, y2 = anchors[rows, 0], anchors[rows, 1], anchors[rows, 2], anchors[rows, 3]
    w, h = x2 - x1, y2 - y1
    cx, cy = x1 + 0.5 * w, y1 + 0.5 * h
    dx, dy = deltas[rows, 0], deltas[rows, 1]
    dw, dh = T.minimum(deltas[rows, 2], CLIP), T.minimum(deltas[rows, 3], CLIP)
    pcx, pcy = dx * w + cx, dy * h + cy
    pw, ph = T.exp(dw) * w, T.exp(dh) * h
    boxes[rows, 0] = T.minimum(T.maximum(pcx - 0.5 * pw, 0.0), width)
    boxes[rows, 1] = T.minimum(T.maximum(pcy - 0.5 * ph, 0.0), height)
    boxes[rows, 2] = T.minimum(T.maximum(pcx + 0.5 * pw, 0.0), width)
    boxes[rows, 3] = T.minimum(T.maximum(pcy + 0.5 * ph, 0.0), height)


KERNEL = box_delta_decode


def inputs(shape, rng):
    N = shape["N"]
    xy = rng.random((N, 2)) * 800.0 - 50.0
    wh = np.exp(rng.standard_normal((N, 2))) * 40.0
    d = rng.standard_normal((N, 4)) * 0.5
    if N > 1:
        d[1, 2] = 10.0                                     # clamped to log(1000 / 16)
    return dict(anchors=np.concatenate([xy, xy + wh], axis=1).astype(np.float32),
                deltas=d.astype(np.float32), width=800.0, height=608.0)


def reference(anchors, deltas, width, height):
    a, d = anchors.astype(np.float64), deltas.astype(np.float64)
    w, h = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
    cx, cy = a[:, 0] + 0.5 * w, a[:, 1] + 0.5 * h
    dw, dh = np.minimum(d[:, 2], np.float32(CLIP)), np.minimum(d[:, 3], np.float32(CLIP))
    pcx, pcy = d[:, 0] * w + cx, d[:, 1] * h + cy
    pw, ph = np.exp(dw) * w, np.exp(dh) * h
    out = np.stack([pcx - 0.5 * pw, pcy - 0.5 * ph, pcx + 0.5 * pw, pcy + 0.5 * ph], axis=1)
    out[:, 0::2] = np.clip(out[:, 0::2], 0.0, width)
    out[:, 1::2] = np.clip(out[:, 1::2], 0.0, height)
    return dict(boxes=out)


def peer(anchors, deltas, width, height):
    import torch
    w, h = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    cx, cy = anchors[:, 0] + 0.5 * w, anchors[:, 1] + 0.5 * h
    dw, dh = deltas[:, 2].clamp(max=CLIP), deltas[:, 3].clamp(max=CLIP)
    pcx, pcy = deltas[:, 0] * w + cx, deltas[:, 1] * h + cy
    pw, ph = torch.exp(dw) * w, torch.exp(dh) * h
    out = torch.stack([pcx - 0.5 * pw, pcy - 0.5 * ph, pcx + 0.5 * pw, pcy + 0.5 * ph], dim=1)
    out[:, 0::2] = out[:, 0::2].clamp(0.0, width)
    out[:, 1::2] = out[:, 1::2].clamp(0.0, height)
    return dict(boxes=out)


def OPS(shape):
    return 24 * shape["N"], 48 * shape["N"]


TEST_SHAPES = [dict(N=1), dict(N=37), dict(N=1031),
               dict(N=0)]   # the last: no rows (check.py; CI runs the second)
BENCH_SHAPE = dict(N=3_145_728)
TOLERANCE = dict(rtol=1e-5, atol=1e-4)
PEER = "torch.compile"
