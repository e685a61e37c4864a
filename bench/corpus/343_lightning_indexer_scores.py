"""Sparse-attention lightning indexer scores (DeepSeek-V3.2's DSA indexer, which picks the keys each query
attends to): for queries q bf16 [T, H, D] (H 64 heads of D 128), per-query head weights w f32 [T, H] and
keys k bf16 [S, D] (one shared key head), the index score I[t, s] = sum_h w[t, h] * relu(q[t, h] . k[s])
(f32 accumulation) for s <= t + (S - T) (causal, the queries the last T positions), else -inf; output
f32 [T, S]. T 4096 S 4096. Peer: torch.compile (einsum, relu, weighted sum)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def lightning_indexer(q: T.In[T.bf16, ("T", "H", "D")], w: T.In[T.f32, ("T", "H")],
                      k: T.In[T.bf16, ("S", "D")], scores: T.Out[T.f32, ("T", "S")]):
    NT, H, D = q.shape
    S = k.shape[0]
    heads, dims, keys = T.domain(0, H), T.domain(0, D), T.domain(0, S)
    kpos = T.indices(keys)
    for t in T.parallel(T.domain(0, NT)):
        logits = T.matmul(q[t, heads, dims], k[keys, dims], transpose_rhs=True)     # f32 [H, S]
        idx = T.sum(T.relu(logits) * w[t, heads], axis=0)                            # w spread over keys
        scores[t, keys] = T.where(kpos <= t + (S - NT), idx, -math.inf)


KERNEL = lightning_indexer


def inputs(shape, rng):
    NT, H, D, S = shape["T"], shape["H"], shape["D"], shape["S"]
    assert S >= NT
    return dict(q=rng.standard_normal((NT, H, D)).astype(np.float32),
                w=(rng.standard_normal((NT, H)) / max(H, 1) ** 0.5).astype(np.float32),
                k=rng.standard_normal((S, D)).astype(np.float32))


def reference(q, w, k):
    NT, S = q.shape[0], k.shape[0]
    logits = np.einsum("thd,sd->ths", q.astype(np.float64), k.astype(np.float64))
    idx = np.einsum("ths,th->ts", np.maximum(logits, 0.0), w.astype(np.float64))
    visible = np.arange(S)[None, :] <= np.arange(NT)[:, None] + (S - NT)
    return dict(scores=np.where(visible, idx, -np.inf))


def peer(q, w, k):
    import torch
    NT, S = q.shape[0], k.shape[0]
    logits = torch.einsum("thd,sd->ths", q.float(), k.float())        # f32 accumulation of bf16 values
    idx = torch.einsum("ths,th->ts", torch.relu(logits), w)
    visible = torch.arange(S, device=q.device)[None, :] <= torch.arange(NT, device=q.device)[:, None] + (S - NT)
    return dict(scores=idx.masked_fill(~visible, float("-inf")))


def OPS(shape):
    NT, H, D, S = shape["T"], shape["H"], shape["D"], shape["S"]
    return 2 * NT * H * S * D + 3 * NT * H * S, 2 * NT * H * D + 4 * NT * H + 2 * S * D + 4 * NT * S


TEST_SHAPES = [dict(T=1, H=1, D=1, S=1), dict(T=5, H=3, D=7, S=11), dict(T=19, H=5, D=33, S=37)]
BENCH_SHAPE = dict(T=4096, H=64, D=128, S=4096)
TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "torch.compile"
