"""Sliding-window causal attention with a runtime window: key j is visible to query i iff
i - window < j <= i, `window` a runtime integer argument (not a constexpr); q/k/v [B, H, S, D] bf16,
scale 1/sqrt(D), o [B, H, S, D] bf16. B=4 H=16 S=4096 D=128 window=512.
Peer: SDPA with an explicit boolean mask."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sliding_window_runtime(q: T.In[T.bf16, ("B", "H", "S", "D")],
                           k: T.In[T.bf16, ("B", "H", "S", "D")],
                           v: T.In[T.bf16, ("B", "H", "S", "D")],
                           o: T.Out[T.bf16, ("B", "H", "S", "D")],
                           scale: T.f32, window: T.i32):
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    w = T.cast(window, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kpos = T.indices(keys)
        visible = (kpos <= i) & (kpos + w > i)
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale     # f32 over keys
        s = T.where(visible, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.bf16)


KERNEL = sliding_window_runtime
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, S, D = (shape[n] for n in ("B", "H", "S", "D"))
    return dict(q=rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=rng.standard_normal((B, H, S, D), dtype=np.float32),
                v=rng.standard_normal((B, H, S, D), dtype=np.float32),
                scale=1.0 / math.sqrt(D), window=shape["W"])


def _mask(S, window):
    i = np.arange(S)[:, None]
    j = np.arange(S)[None, :]
    return (j <= i) & (j > i - window)


def reference(q, k, v, scale, window):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    s = np.where(_mask(q.shape[2], window), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, scale, window):
    import torch
    import torch.nn.functional as F
    S = q.shape[2]
    i = torch.arange(S, device=q.device)[:, None]
    j = torch.arange(S, device=q.device)[None, :]
    mask = (j <= i) & (j > i - window)
    return dict(o=F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale))


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16, W=1), dict(B=1, H=2, S=37, D=32, W=5),
               dict(B=2, H=1, S=67, D=24, W=64), dict(B=1, H=1, S=23, D=16, W=100)]
BENCH_SHAPE = dict(B=4, H=16, S=4096, D=128, W=512)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.nn.functional.scaled_dot_product_attention(attn_mask=sliding-window bool mask)"


def OPS(shape):
    B, H, S, D, W = (shape[n] for n in ("B", "H", "S", "D", "W"))
    visible = sum(min(i + 1, W) for i in range(S))
    return 4 * B * H * visible * D, 2 * 4 * B * H * S * D
