"""Attention (non-causal) with an additive bias tensor: bias [H, S, T] f32 (e.g. a learned relative-position
bias, shared across the batch) is added to the scaled scores before the softmax; q [B, H, S, D],
k/v [B, H, T, D] bf16, scale 1/sqrt(D), o [B, H, S, D] bf16. B=4 H=16 S=T=2048 D=64.
Peer: torch.compile (SDPA with attn_mask=bias, a float additive mask)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def attention_bias_tensor(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "H", "T", "D")],
                          v: T.In[T.bf16, ("B", "H", "T", "D")], bias: T.In[T.f32, ("H", "S", "T")],
                          o: T.Out[T.bf16, ("B", "H", "S", "D")], scale: T.f32):
    B, H, S, D = q.shape
    keys, dims = k.domain(2), T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale + bias[h, i, keys]
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.bf16)


KERNEL = attention_bias_tensor
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, S, Tk, D = (shape[n] for n in ("B", "H", "S", "T", "D"))
    return dict(q=rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=rng.standard_normal((B, H, Tk, D), dtype=np.float32),
                v=rng.standard_normal((B, H, Tk, D), dtype=np.float32),
                bias=rng.standard_normal((H, S, Tk), dtype=np.float32),
                scale=1.0 / math.sqrt(D))


def reference(q, k, v, bias, scale):
    q, k, v = (np.asarray(t, np.float64) for t in (q, k, v))
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale + bias[None].astype(np.float64)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, bias, scale):
    import torch.nn.functional as F
    return dict(o=F.scaled_dot_product_attention(q, k, v, attn_mask=bias.to(q.dtype)[None], scale=scale))


TEST_SHAPES = [dict(B=1, H=1, S=1, T=1, D=16), dict(B=1, H=3, S=19, T=37, D=32),
               dict(B=2, H=2, S=23, T=13, D=24), dict(B=1, H=1, S=5, T=131, D=64)]
BENCH_SHAPE = dict(B=4, H=16, S=2048, T=2048, D=64)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    B, H, S, Tk, D = (shape[n] for n in ("B", "H", "S", "T", "D"))
    return 4 * B * H * S * Tk * D, 2 * B * H * D * (2 * S + 2 * Tk) + 4 * H * S * Tk
