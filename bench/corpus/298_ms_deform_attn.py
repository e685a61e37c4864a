"""Multi-scale deformable attention, the sampling core (Deformable DETR's MSDeformAttnFunction, as
DINO / RT-DETR / Mask2Former run it): value bf16 [N, S, M, Dh] holds M heads of the features of L = 4
pyramid levels flattened back to back (level l is an H_l x W_l map starting at row level_start[l],
spatial_shapes i64 [4, 2] = (H_l, W_l), level_start i64 [4]); each query q has, per head and level, 4
sampling points at normalized locations loc f32 [N, Q, M, 4, 4, 2] = (x, y) in [0, 1] and attention
weights attn f32 [N, Q, M, 4, 4]. out[n, q, m, :] = sum over levels and points of attn * the bilinear
sample of level l of head m at pixel (x W_l - 0.5, y H_l - 0.5) (grid_sample with align_corners=False
and zero padding: each of the 4 neighbours outside the map contributes 0), f32 [N, Q, M, Dh].
N2 Q20197 (the encoder's queries: 100x152 + 50x76 + 25x38 + 13x19 pixels of an 800 x 1216 image, S = Q)
M8 Dh32. Peer: torch ms_deform_attn_core_pytorch (F.grid_sample per level)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def ms_deform_attn(value: T.In[T.bf16, ("N", "S", "M", "Dh")], spatial_shapes: T.In[T.i64, (4, 2)],
                   level_start: T.In[T.i64, (4,)], loc: T.In[T.f32, ("N", "Q", "M", 4, 4, 2)],
                   attn: T.In[T.f32, ("N", "Q", "M", 4, 4)], out: T.Out[T.f32, ("N", "Q", "M", "Dh")]):
    N, S, M, Dh = value.shape
    Q = loc.shape[1]
    levels, points, dims = T.domain(0, 4), T.domain(0, 4), T.domain(0, Dh)
    hs = T.broadcast(spatial_shapes[levels, 0], over=(levels, points), dims=[0])
    ws = T.broadcast(spatial_shapes[levels, 1], over=(levels, points), dims=[0])
    start = T.broadcast(level_start[levels], over=(levels, points), dims=[0])
    for n, q, m in T.parallel(T.domain(0, N), T.domain(0, Q), T.domain(0, M)):
        x = loc[n, q, m, levels, points, 0] * T.cast(ws, T.f32) - 0.5
        y = loc[n, q, m, levels, points, 1] * T.cast(hs, T.f32) - 0.5
        x0, y0 = T.floor(x), T.floor(y)
        fx, fy = x - x0, y - y0
        xi, yi = T.cast(x0, T.i64), T.cast(y0, T.i64)
        a = attn[n, q, m, levels, points]
        acc = T.zeros(dims)
        for dy in range(2):
            for dx in range(2):
                cx, cy = xi + dx, yi + dy
                wgt = (fx if dx else 1.0 - fx) * (fy if dy else 1.0 - fy) * a
                ok = (cx >= 0) & (cx < ws) & (cy >= 0) & (cy < hs)
                row = start + cy * ws + cx
                tap = T.load(value, (n, row, m, dims), valid=ok, fill=0.0)       # over (levels, points, dims)
                acc = acc + T.sum(T.cast(tap, T.f32) * T.where(ok, wgt, 0.0), axis=(0, 1))
        out[n, q, m, dims] = acc


KERNEL = ms_deform_attn


def _levels(S):
    """Four level shapes (H, W), coarser each level, whose areas sum to S."""
    if S == 20197:                                      # the bench shape: an 800 x 1216 image's FPN levels
        return np.array([(100, 152), (50, 76), (25, 38), (13, 19)], np.int64)
    if S < 4:
        raise ValueError("S >= 4: one pixel a level at least")
    areas = [max(1, int(S * f)) for f in (0.75, 0.1875, 0.047)]
    areas.append(S - sum(areas))
    if areas[-1] < 1:
        areas = [S - 3, 1, 1, 1]
    shapes = []
    for a in areas:
        h = max(d for d in range(1, int(a ** 0.5) + 1) if a % d == 0)
        shapes.append((h, a // h))
    return np.array(shapes, np.int64)


def inputs(shape, rng):
    N, S, M, Dh, Q = shape["N"], shape["S"], shape["M"], shape["Dh"], shape["Q"]
    shapes = _levels(S)
    start = np.concatenate([[0], np.cumsum(shapes[:, 0] * shapes[:, 1])[:-1]]).astype(np.int64)
    loc = rng.uniform(-0.1, 1.1, size=(N, Q, M, 4, 4, 2))             # a few points off the map
    a = rng.random((N, Q, M, 4, 4))
    a /= a.sum(axis=(3, 4), keepdims=True)
    return dict(value=rng.standard_normal((N, S, M, Dh)).astype(np.float32), spatial_shapes=shapes,
                level_start=start, loc=loc.astype(np.float32), attn=a.astype(np.float32))


def reference(value, spatial_shapes, level_start, loc, attn):
    N, S, M, Dh = value.shape
    Q = loc.shape[1]
    v = value.astype(np.float64)
    out = np.zeros((N, Q, M, Dh))
    nn, qq, mm = np.meshgrid(np.arange(N), np.arange(Q), np.arange(M), indexing="ij")
    for l in range(4):
        H, W = (int(t) for t in spatial_shapes[l])
        for p in range(4):
            x = loc[:, :, :, l, p, 0].astype(np.float32) * np.float32(W) - np.float32(0.5)
            y = loc[:, :, :, l, p, 1].astype(np.float32) * np.float32(H) - np.float32(0.5)
            x0, y0 = np.floor(x), np.floor(y)
            for dy in range(2):
                for dx in range(2):
                    cx, cy = x0.astype(np.int64) + dx, y0.astype(np.int64) + dy
                    w = (x - x0 if dx else 1 - (x - x0)) * (y - y0 if dy else 1 - (y - y0))
                    ok = (cx >= 0) & (cx < W) & (cy >= 0) & (cy < H)
                    row = np.where(ok, level_start[l] + cy * W + cx, 0)
                    tap = v[nn, row, mm]                                       # [N, Q, M, Dh]
                    out += np.where(ok, w * attn[:, :, :, l, p], 0.0)[..., None] * tap
    return dict(out=out)


def peer(value, spatial_shapes, level_start, loc, attn):
    import torch
    import torch.nn.functional as F
    N, S, M, Dh = value.shape
    Q = loc.shape[1]
    grids = 2 * loc - 1
    out = 0
    for l in range(4):
        H, W = (int(t) for t in spatial_shapes[l])
        s0 = int(level_start[l])
        v = value[:, s0:s0 + H * W].float().permute(0, 2, 3, 1).reshape(N * M, Dh, H, W)
        g = grids[:, :, :, l].permute(0, 2, 1, 3, 4).reshape(N * M, Q, 4, 2)
        smp = F.grid_sample(v, g, mode="bilinear", padding_mode="zeros", align_corners=False)   # [N*M, Dh, Q, 4]
        w = attn[:, :, :, l].permute(0, 2, 1, 3).reshape(N * M, 1, Q, 4)
        out = out + (smp * w).sum(-1)
    return dict(out=out.reshape(N, M, Dh, Q).permute(0, 3, 1, 2))


def OPS(shape):
    n = shape["N"] * shape["Q"] * shape["M"]
    return n * 16 * 4 * 3 * shape["Dh"], n * 16 * 4 * 2 * shape["Dh"] + n * 16 * 12 + 4 * n * shape["Dh"]


TEST_SHAPES = [dict(N=1, S=4, M=1, Dh=1, Q=1), dict(N=1, S=7, M=1, Dh=3, Q=2), dict(N=1, S=97, M=3, Dh=8, Q=13)]
BENCH_SHAPE = dict(N=2, S=20197, M=8, Dh=32, Q=20197)
TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "ms_deform_attn_core_pytorch"
