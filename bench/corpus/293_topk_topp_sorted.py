"""Per-request top-k and top-p (nucleus) filtering of next-token logits after the sort (vLLM's sampler,
apply_top_k_top_p: the batch's logits are sorted ascending once by torch, then masked and put back):
logits_sort f32 [B, V] is each row sorted ascending and logits_idx i64 [B, V] the vocabulary id at each
sorted position. Each request b has its own k[b] (i32, 1 <= k <= V) and p[b] (f32 in (0, 1]): positions
whose logit is below the k-th largest, logits_sort[b, V - k[b]], are masked; then, with probs the softmax
of the row after that mask and c their running sum along the sorted row, positions with c <= 1 - p[b] are
masked too, except the last (the most likely token is always kept). out[b, logits_idx[b, j]] =
logits_sort[b, j], or -inf where masked, f32 [B, V] in vocabulary order. B256 V128256. Peer: torch (the
same steps after the sort)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def topk_topp_sorted(logits_sort: T.In[T.f32, ("B", "V")], logits_idx: T.In[T.i64, ("B", "V")],
                     k: T.In[T.i32, ("B",)], p: T.In[T.f32, ("B",)], out: T.Out[T.f32, ("B", "V")]):
    B, V = logits_sort.shape
    vocab = T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        row = logits_sort[b, vocab]
        kth = logits_sort[b, V - T.cast(k[b], T.index)]
        row = T.where(row < kth, -math.inf, row)
        e = T.exp(row - T.max(row))
        c = T.cumsum(e / T.sum(e))
        last = T.indices(vocab) == V - 1
        out[b, logits_idx[b, vocab]] = T.where((c <= 1.0 - p[b]) & ~last, -math.inf, row)


KERNEL = topk_topp_sorted


def inputs(shape, rng):
    B, V = shape["B"], shape["V"]
    x = (rng.standard_normal((B, V)) * 3.0).astype(np.float32)
    idx = np.argsort(x, axis=1, kind="stable")
    k = rng.integers(1, V + 1, size=B)
    p = rng.uniform(0.05, 1.0, size=B)
    if B > 1:
        k[1], p[1] = V, 1.0                   # nothing filtered
    if B > 2:
        p[2] = 1e-4                           # only the top token survives top-p
    return dict(logits_sort=np.take_along_axis(x, idx, axis=1), logits_idx=idx.astype(np.int64),
                k=k.astype(np.int32), p=p.astype(np.float32))


def reference(logits_sort, logits_idx, k, p):
    B, V = logits_sort.shape
    out = np.zeros((B, V), np.float32)
    for b in range(B):
        row = logits_sort[b].astype(np.float32).copy()
        row[row < row[V - k[b]]] = -np.inf
        e = np.exp((row - row.max()).astype(np.float64))
        c = np.cumsum(e / e.sum())
        drop = c <= 1.0 - np.float64(p[b])
        drop[-1] = False
        row[drop] = -np.inf
        out[b, logits_idx[b]] = row
    return dict(out=out)


def peer(logits_sort, logits_idx, k, p):
    import torch
    V = logits_sort.shape[1]
    kth = logits_sort.gather(1, (V - k.long())[:, None])
    x = logits_sort.masked_fill(logits_sort < kth, -float("inf"))
    c = x.softmax(dim=-1).cumsum(dim=-1)
    drop = c <= 1 - p[:, None]
    drop[:, -1] = False
    x = x.masked_fill(drop, -float("inf"))
    return dict(out=torch.empty_like(x).scatter_(1, logits_idx, x))


def OPS(shape):
    n = shape["B"] * shape["V"]
    return 8 * n, 16 * n


TEST_SHAPES = [dict(B=1, V=1), dict(B=3, V=7), dict(B=5, V=1031)]
BENCH_SHAPE = dict(B=256, V=128256)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch.compile"
