"""Causal attention backward, the dK piece (FlashAttention-2's backward, as every causal LM's training
step runs it): given q, k, v, dO bf16 [B, H, S, D], the forward's logsumexp lse f32 [B, H, S] of each
query row and delta f32 [B, H, S] = rowsum(dO * O) (the backward's preprocessing), with scale = 1/sqrt(D),
P[i, j] = exp(scale q_i . k_j - lse[i]) for j <= i (0 above the diagonal), dP[i, j] = dO_i . v_j and
dS = P * (dP - delta[i]): dK[j] = scale * sum over i of dS[i, j] q_i, f32 [B, H, S, D]. B2 H16 S2048 D64.
Peer: torch.compile of recomputing P from q, k and lse with the causal mask, then dS^T @ q."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def attention_backward_dk(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "H", "S", "D")],
                          v: T.In[T.bf16, ("B", "H", "S", "D")], do: T.In[T.bf16, ("B", "H", "S", "D")],
                          lse: T.In[T.f32, ("B", "H", "S")], delta: T.In[T.f32, ("B", "H", "S")],
                          dk: T.Out[T.f32, ("B", "H", "S", "D")], scale: T.f32):
    B, H, S, D = q.shape
    queries, dims = T.domain(0, S), T.domain(0, D)
    qpos = T.indices(queries)
    for b, h, j in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):     # one key row
        s = T.matvec(q[b, h, queries, dims], k[b, h, j, dims]) * scale            # f32 over queries
        p = T.where(qpos >= j, T.exp(s - lse[b, h, queries]), 0.0)               # column j of P
        dp = T.matvec(do[b, h, queries, dims], v[b, h, j, dims])
        ds = p * (dp - delta[b, h, queries])
        dk[b, h, j, dims] = T.vecmat(T.cast(ds, T.bf16), q[b, h, queries, dims]) * scale


KERNEL = attention_backward_dk


def _forward(q, k, v, scale):
    S = q.shape[2]
    s = np.einsum("bhid,bhjd->bhij", q, k) * scale
    s = np.where(np.tril(np.ones((S, S), dtype=bool)), s, -np.inf)
    m = s.max(-1, keepdims=True)
    lse = m[..., 0] + np.log(np.exp(s - m).sum(-1))
    o = np.einsum("bhij,bhjd->bhid", np.exp(s - lse[..., None]), v)
    return lse, o


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    from _harness import _round_bf16
    q, k, v, do = (_round_bf16(rng.standard_normal((B, H, S, D)).astype(np.float32)) for _ in range(4))
    scale = 1.0 / math.sqrt(D)
    lse, o = _forward(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), scale)
    delta = (do.astype(np.float64) * o).sum(-1)
    return dict(q=q, k=k, v=v, do=do, lse=lse.astype(np.float32), delta=delta.astype(np.float32), scale=scale)


def reference(q, k, v, do, lse, delta, scale):
    S = q.shape[2]
    q64 = q.astype(np.float64)
    s = np.einsum("bhid,bhjd->bhij", q64, k) * scale
    p = np.where(np.tril(np.ones((S, S), dtype=bool)), np.exp(s - lse[..., None]), 0.0)
    dp = np.einsum("bhid,bhjd->bhij", do.astype(np.float64), v)
    ds = p * (dp - delta[..., None])
    return dict(dk=np.einsum("bhij,bhid->bhjd", ds, q64) * scale)


def peer(q, k, v, do, lse, delta, scale):
    import torch
    S = q.shape[2]
    s = torch.matmul(q.float(), k.float().transpose(-1, -2)) * scale
    causal = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
    p = torch.where(causal, torch.exp(s - lse[..., None]), 0.0)
    dp = torch.matmul(do.float(), v.float().transpose(-1, -2))
    ds = p * (dp - delta[..., None])
    return dict(dk=torch.matmul(ds.transpose(-1, -2).to(q.dtype), q).float() * scale)


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return 3 * B * H * S * S * D, 2 * 4 * B * H * S * D + 8 * B * H * S + 4 * B * H * S * D


TEST_SHAPES = [dict(B=1, H=1, S=1, D=1), dict(B=1, H=2, S=13, D=8), dict(B=2, H=1, S=37, D=16)]
BENCH_SHAPE = dict(B=2, H=16, S=2048, D=64)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
