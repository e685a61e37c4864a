"""ViT self-attention with a non-power-of-two sequence length: q/k/v [B, H, S, D] f16 with S=197 (196 patches
plus the class token), D=64, non-causal, scale 1/sqrt(D), o [B, H, S, D] f16. B=64 H=12 S=197 D=64.
Peer: torch.compile (F.scaled_dot_product_attention)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def vit_attention_197(q: T.In[T.f16, ("B", "H", "S", "D")], k: T.In[T.f16, ("B", "H", "S", "D")],
                      v: T.In[T.f16, ("B", "H", "S", "D")], o: T.Out[T.f16, ("B", "H", "S", "D")],
                      scale: T.f32):
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.f16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.f16)


KERNEL = vit_attention_197
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, S, D = (shape[n] for n in ("B", "H", "S", "D"))
    return dict(q=rng.standard_normal((B, H, S, D)).astype(np.float16),
                k=rng.standard_normal((B, H, S, D)).astype(np.float16),
                v=rng.standard_normal((B, H, S, D)).astype(np.float16),
                scale=1.0 / math.sqrt(D))


def reference(q, k, v, scale):
    q, k, v = (np.asarray(t, np.float64) for t in (q, k, v))
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, scale):
    import torch.nn.functional as F
    return dict(o=F.scaled_dot_product_attention(q, k, v, scale=scale))


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=2, H=3, S=17, D=32), dict(B=1, H=2, S=197, D=64),
               dict(B=1, H=1, S=67, D=24)]
BENCH_SHAPE = dict(B=64, H=12, S=197, D=64)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    B, H, S, D = (shape[n] for n in ("B", "H", "S", "D"))
    return 4 * B * H * S * S * D, 2 * 4 * B * H * S * D
