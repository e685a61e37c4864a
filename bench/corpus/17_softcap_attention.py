"""Causal attention with logit soft-capping: s = scale * q.k, s <- cap * tanh(s / cap), causal mask
(key k visible to query q when k <= q), O = softmax(s) . V. B4 H32 S4096 D128 bf16.
Peer: FlexAttention with a score_mod."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def softcap_attention(q: T.In[T.bf16, ("B", "H", "S", "D")],
                      k: T.In[T.bf16, ("B", "H", "S", "D")],
                      v: T.In[T.bf16, ("B", "H", "S", "D")],
                      o: T.Out[T.bf16, ("B", "H", "S", "D")],
                      scale: T.f32, softcap: T.f32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale     # f32 over keys
        s = softcap * T.tanh(s / softcap)
        s = T.where(T.indices(keys) <= i, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims])          # f32 over dims
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.bf16)


KERNEL = softcap_attention


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    # q.k * scale has std ~4, so the cap (10) actually bends the logits
    return dict(q=2.0 * rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=2.0 * rng.standard_normal((B, H, S, D), dtype=np.float32),
                v=rng.standard_normal((B, H, S, D), dtype=np.float32),
                scale=1.0 / math.sqrt(D), softcap=10.0)


def reference(q, k, v, scale, softcap):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    s = softcap * np.tanh(s / softcap)
    S = q.shape[2]
    s = np.where(np.tril(np.ones((S, S), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, scale, softcap):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    B, H, S, D = q.shape

    def score_mod(score, b, h, qi, ki):
        return softcap * (score / softcap).tanh()

    def causal(b, h, qi, ki):
        return ki <= qi

    mask = create_block_mask(causal, None, None, S, S, device=q.device)
    return dict(o=flex_attention(q, k, v, score_mod=score_mod, block_mask=mask, scale=scale))


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=1, H=2, S=37, D=32), dict(B=2, H=1, S=67, D=24)]
BENCH_SHAPE = dict(B=4, H=32, S=4096, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "flex_attention(score_mod=softcap, block_mask=causal)"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    flops = 2 * 2 * B * H * S * S * D // 2          # QK^T and PV, causal half
    return flops, 4 * B * H * S * D * 2              # q, k, v, o in bf16
