"""Causal attention with a T5-style relative position bias: score(i, j) = scale * q_i . k_j
+ table[h, bucket(i - j)] for j <= i (masked otherwise), where bucket clamps the distance to 0..NB-1
(NB=32: distances beyond 31 share the last bucket); O = softmax(score) . V. q, k, v, O [B, H, S, D] f16,
table [H, NB] f32. B4 H16 S2048 D64. Peer: FlexAttention score_mod (torch.compile), else SDPA with a
materialized bias."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def t5_relbias_attention(q: T.In[T.f16, ("B", "H", "S", "D")],
                         k: T.In[T.f16, ("B", "H", "S", "D")],
                         v: T.In[T.f16, ("B", "H", "S", "D")],
                         table: T.In[T.f32, ("H", "NB")],
                         o: T.Out[T.f16, ("B", "H", "S", "D")],
                         scale: T.f32):
    B, H, S, D = q.shape
    NB = table.shape[1]
    keys, dims = T.domain(0, S), T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kpos = T.indices(keys)
        bucket = T.minimum(T.maximum(i - kpos, 0), NB - 1)                  # index over keys
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale         # f32 over keys
        s = s + table[h, bucket]
        s = T.where(kpos <= i, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.f16), v[b, h, keys, dims])               # f32 over dims
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.f16)


KERNEL = t5_relbias_attention
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, S, D, NB = shape["B"], shape["H"], shape["S"], shape["D"], shape["NB"]
    return dict(q=rng.standard_normal((B, H, S, D)).astype(np.float16),
                k=rng.standard_normal((B, H, S, D)).astype(np.float16),
                v=rng.standard_normal((B, H, S, D)).astype(np.float16),
                table=rng.uniform(-2.0, 2.0, size=(H, NB)).astype(np.float32),
                scale=1.0 / math.sqrt(D))


def reference(q, k, v, table, scale):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    S, NB = q.shape[2], table.shape[1]
    pos = np.arange(S)
    bucket = np.clip(pos[:, None] - pos[None, :], 0, NB - 1)                # [S, S]
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale + table.astype(np.float64)[:, bucket][None]
    s = np.where(pos[None, :] <= pos[:, None], s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, table, scale):
    import torch
    B, H, S, D = q.shape
    NB = table.shape[1]
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError:
        flex_attention = None
    if flex_attention is not None and q.is_cuda:
        def score_mod(score, b, h, qi, ki):
            return score + table[h, torch.clamp(qi - ki, 0, NB - 1)]

        def causal(b, h, qi, ki):
            return ki <= qi

        mask = create_block_mask(causal, None, None, S, S, device=q.device)
        return dict(o=flex_attention(q, k, v, score_mod=score_mod, block_mask=mask, scale=scale))
    pos = torch.arange(S, device=q.device)
    bucket = torch.clamp(pos[:, None] - pos[None, :], 0, NB - 1)
    bias = table[:, bucket]                                                 # [H, S, S]
    bias = bias.masked_fill(pos[None, :] > pos[:, None], float("-inf")).to(q.dtype)
    return dict(o=torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=scale))


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16, NB=32), dict(B=1, H=2, S=31, D=8, NB=32),
               dict(B=2, H=3, S=67, D=24, NB=32), dict(B=1, H=2, S=33, D=64, NB=32),
               dict(B=1, H=1, S=13, D=5, NB=3)]
BENCH_SHAPE = dict(B=4, H=16, S=2048, D=64, NB=32)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "flex_attention(score_mod=table[h, clamp(q - k)], block_mask=causal); else SDPA(attn_mask=float bias)"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    flops = 2 * 2 * B * H * S * S * D // 2          # QK^T and PV, causal half
    return flops, 4 * B * H * S * D * 2 + 4 * H * shape["NB"]
