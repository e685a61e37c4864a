"""Causal attention with ALiBi position biases: score(q, k) = scale * q.k - slope[h] * (q_pos - k_pos)
for k_pos <= q_pos (masked otherwise), O = softmax(score) . V, with a per-head slope (slopes [H] f32).
q, k, v [B, H, S, D] bf16, O bf16. B4 H32 S2048 D128. Peer: FlexAttention with a score_mod (else
SDPA with an explicit float bias)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def alibi_attention(q: T.In[T.bf16, ("B", "H", "S", "D")],
                    k: T.In[T.bf16, ("B", "H", "S", "D")],
                    v: T.In[T.bf16, ("B", "H", "S", "D")],
                    slopes: T.In[T.f32, ("H",)],
                    o: T.Out[T.bf16, ("B", "H", "S", "D")],
                    scale: T.f32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kpos = T.indices(keys)
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale        # f32 over keys
        s = s - slopes[h] * T.cast(i - kpos, T.f32)
        s = T.where(kpos <= i, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims])              # f32 over dims
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.bf16)


KERNEL = alibi_attention
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    # slopes larger than ALiBi's 2^(-8(h+1)/H) at these short lengths, so the bias moves the weights
    return dict(q=rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=rng.standard_normal((B, H, S, D), dtype=np.float32),
                v=rng.standard_normal((B, H, S, D), dtype=np.float32),
                slopes=rng.uniform(0.02, 0.5, size=H).astype(np.float32),
                scale=1.0 / math.sqrt(D))


def reference(q, k, v, slopes, scale):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    S = q.shape[2]
    pos = np.arange(S)
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    s = s - slopes.astype(np.float64)[None, :, None, None] * (pos[:, None] - pos[None, :])
    s = np.where(pos[None, :] <= pos[:, None], s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, slopes, scale):
    import torch
    B, H, S, D = q.shape
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError:
        flex_attention = None
    if flex_attention is not None and q.is_cuda:
        def score_mod(score, b, h, qi, ki):
            return score - slopes[h] * (qi - ki)

        def causal(b, h, qi, ki):
            return ki <= qi

        mask = create_block_mask(causal, None, None, S, S, device=q.device)
        return dict(o=flex_attention(q, k, v, score_mod=score_mod, block_mask=mask, scale=scale))
    pos = torch.arange(S, device=q.device)
    rel = (pos[:, None] - pos[None, :]).to(torch.float32)
    bias = -slopes[:, None, None] * rel                                      # [H, S, S]
    bias = bias.masked_fill(pos[None, :] > pos[:, None], float("-inf")).to(q.dtype)
    return dict(o=torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=scale))


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=1, H=2, S=37, D=32), dict(B=2, H=3, S=67, D=24)]
BENCH_SHAPE = dict(B=4, H=32, S=2048, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "flex_attention(score_mod=alibi, block_mask=causal); else SDPA(attn_mask=float bias)"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    flops = 2 * 2 * B * H * S * S * D // 2          # QK^T and PV, causal half
    return flops, 4 * B * H * S * D * 2 + 4 * H      # q, k, v, o in bf16; slopes
