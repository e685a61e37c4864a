"""Batched greedy non-maximum suppression (torchvision.ops.nms per image, as YOLO and Faster R-CNN
post-processing run it on the GPU after a top-k pre-filter): boxes f32 [B, N, 4] = (x1, y1, x2, y2) of
each image are sorted by descending score; box i is kept when no kept box j < i overlaps it with IoU >
iou_threshold (a runtime f32), IoU = inter / (area_i + area_j - inter). keep i32 [B, N]: 1 for kept
boxes, 0 for suppressed ones. B64 N1000 (YOLO's 1000 candidates an image after the confidence filter).
Peer: torchvision.ops.batched_nms (one image a call; the CUDA kernel's bitmask then a serial sweep)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def nms_sorted(boxes: T.In[T.f32, ("B", "N", 4)], keep: T.InOut[T.i32, ("B", "N")], iou_threshold: T.f32):
    B, N = boxes.shape[0], boxes.shape[1]
    cand = T.domain(0, N)
    for b in T.parallel(T.domain(0, B)):
        for i in T.domain(0, N):
            earlier = cand[0:i]
            x1, y1, x2, y2 = boxes[b, earlier, 0], boxes[b, earlier, 1], boxes[b, earlier, 2], boxes[b, earlier, 3]
            ix1, iy1, ix2, iy2 = boxes[b, i, 0], boxes[b, i, 1], boxes[b, i, 2], boxes[b, i, 3]
            iw = T.maximum(T.minimum(x2, ix2) - T.maximum(x1, ix1), 0.0)
            ih = T.maximum(T.minimum(y2, iy2) - T.maximum(y1, iy1), 0.0)
            inter = iw * ih
            union = (x2 - x1) * (y2 - y1) + (ix2 - ix1) * (iy2 - iy1) - inter
            suppressed = T.any((keep[b, earlier] != 0) & (inter > iou_threshold * union))
            keep[b, i] = T.where(suppressed, 0, 1, dtype=T.i32)


KERNEL = nms_sorted


def inputs(shape, rng):
    B, N = shape["B"], shape["N"]
    centers = rng.random((B, max(1, N // 8), 2)) * 400.0          # clusters of overlapping boxes
    c = centers[np.arange(B)[:, None], rng.integers(0, centers.shape[1], size=(B, N))]
    c = c + rng.standard_normal((B, N, 2)) * 8.0
    wh = rng.random((B, N, 2)) * 60.0 + 10.0
    boxes = np.concatenate([c - wh / 2, c + wh / 2], axis=2)
    # keep is InOut only because the sweep reads the decisions it made (an Out view cannot be read before
    # its first write at trace time): its contents are overwritten, so it comes in filled with garbage
    return dict(boxes=boxes.astype(np.float32), keep=rng.integers(-5, 5, size=(B, N)).astype(np.int32),
                iou_threshold=0.45)


def reference(boxes, keep, iou_threshold):
    B, N = boxes.shape[:2]
    keep = np.zeros((B, N), np.int32)
    b32 = boxes.astype(np.float32)
    for b in range(B):
        for i in range(N):
            x1, y1, x2, y2 = b32[b, :i].T
            ix1, iy1, ix2, iy2 = b32[b, i]
            iw = np.maximum(np.minimum(x2, ix2) - np.maximum(x1, ix1), np.float32(0))
            ih = np.maximum(np.minimum(y2, iy2) - np.maximum(y1, iy1), np.float32(0))
            inter = iw * ih
            union = (x2 - x1) * (y2 - y1) + (ix2 - ix1) * (iy2 - iy1) - inter
            keep[b, i] = 0 if np.any((keep[b, :i] != 0) & (inter > np.float32(iou_threshold) * union)) else 1
    return dict(keep=keep)


def peer(boxes, keep, iou_threshold):
    import torch
    from torchvision.ops import nms
    B, N = boxes.shape[:2]
    scores = torch.arange(N, 0, -1, device=boxes.device, dtype=torch.float32)
    keep.zero_()
    for b in range(B):
        keep[b, nms(boxes[b], scores, iou_threshold)] = 1
    return dict(keep=keep)


def OPS(shape):
    B, N = shape["B"], shape["N"]
    return 12 * B * N * N // 2, 16 * B * N + 4 * B * N


TEST_SHAPES = [dict(B=1, N=1), dict(B=1, N=7), dict(B=3, N=97)]
BENCH_SHAPE = dict(B=64, N=1000)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torchvision.ops.nms"
