"""Per-row L2 distance to a set of 16 centroids and the argmin (k-means assignment): x f32 [N, D], c f32 [16, D], assign int32 [N], dist f32 [N] (the min squared distance). N 4194304 D32. Peer: torch.cdist + min."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def kmeans_assign(x: T.In[T.f32, ("N", "D")], c: T.In[T.f32, (16, "D")],
                  assign: T.Out[T.i32, ("N",)], dist: T.Out[T.f32, ("N",)]):
    N, D = x.shape
    cents, dims = c.domain(0), T.domain(0, D)
    for n in T.parallel(T.domain(0, N)):
        diff = c[cents, dims] - x[n, dims]                  # [16, D]
        d2 = T.sum(diff * diff, axis=1)                     # [16]
        best, at = T.argmin(d2)
        dist[n] = best
        assign[n] = T.cast(at, T.i32)


KERNEL = kmeans_assign


def inputs(shape, rng):
    N, D = shape["N"], shape["D"]
    return dict(x=rng.standard_normal((N, D)).astype(np.float32), c=rng.standard_normal((16, D)).astype(np.float32))


def reference(x, c):
    d2 = ((x.astype(np.float64)[:, None, :] - c.astype(np.float64)[None]) ** 2).sum(-1)
    return dict(assign=d2.argmin(1).astype(np.int32), dist=d2.min(1).astype(np.float32))


def peer(x, c):
    d = torch.cdist(x, c)
    dmin, at = d.min(1)
    return dict(assign=at.to(torch.int32), dist=dmin * dmin)


def assign_scores(x, c):
    """The squared distances the assignment picks the least of, [N, 16] (bench/corpus.py's ARG_SCORES: the
    peer's cdist may order a near-tie the other way)."""
    x64 = x.astype(np.float64)
    return np.stack([((x64 - cj) ** 2).sum(-1) for cj in c.astype(np.float64)], axis=-1)


ARG_SCORES = {"assign": assign_scores}

TEST_SHAPES = [dict(N=1, D=1), dict(N=7, D=3), dict(N=131, D=32)]
BENCH_SHAPE = dict(N=4194304, D=32)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
BENCH_TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "torch.cdist + min"
