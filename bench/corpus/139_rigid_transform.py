"""Batched rigid transforms of points: out[b, n, :] = R[b] @ p[b, n, :] + t[b], R f32 [B, 3, 3], t f32 [B, 3], p f32 [B, N, 3]. B64 N262144. Peer: torch.compile(torch.einsum + add)."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def rigid_transform(R: T.In[T.f32, ("B", 3, 3)], t: T.In[T.f32, ("B", 3)], p: T.In[T.f32, ("B", "N", 3)],
                    out: T.Out[T.f32, ("B", "N", 3)]):
    B, N, _ = p.shape
    pts = T.domain(0, N)
    for b in T.parallel(T.domain(0, B)):
        px, py, pz = p[b, pts, 0], p[b, pts, 1], p[b, pts, 2]
        for i in range(3):
            out[b, pts, i] = R[b, i, 0] * px + R[b, i, 1] * py + R[b, i, 2] * pz + t[b, i]


KERNEL = rigid_transform


def inputs(shape, rng):
    B, N = shape["B"], shape["N"]
    q, _ = np.linalg.qr(rng.standard_normal((B, 3, 3)))
    return {"R": q.astype(np.float32), "t": rng.standard_normal((B, 3)).astype(np.float32),
            "p": (rng.standard_normal((B, N, 3)) * 10.0).astype(np.float32)}


def reference(R, t, p):
    return {"out": np.einsum("bij,bnj->bni", R.astype(np.float64), p.astype(np.float64)) + t[:, None, :]}


def peer(R, t, p):
    import torch
    return {"out": torch.einsum("bij,bnj->bni", R, p) + t[:, None, :]}


def OPS(shape):
    n = shape["B"] * shape["N"]
    return 18 * n, 24 * n


TEST_SHAPES = [dict(B=1, N=1), dict(B=3, N=127), dict(B=5, N=1031)]
BENCH_SHAPE = dict(B=64, N=262144)
TOLERANCE = dict(rtol=1e-5, atol=1e-4)
PEER = "torch.compile(torch.einsum + add)"
