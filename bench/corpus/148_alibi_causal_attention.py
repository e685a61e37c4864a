"""Causal attention with ALiBi bias: score = q.k * scale - slope[h] * (i - j) for j <= i, B4 H16 S2048 D128 bf16, slope f32 [H]. Peer: SDPA with a float bias mask (or FlexAttention score_mod)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel(numerics="relaxed_normalization")
def alibi_causal_attention(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "H", "S", "D")],
                           v: T.In[T.bf16, ("B", "H", "S", "D")], slope: T.In[T.f32, ("H",)],
                           o: T.Out[T.bf16, ("B", "H", "S", "D")], scale: T.f32):
    nb, nh, ns, nd = q.shape
    keys, dims = T.domain(0, ns), T.domain(0, nd)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = s - slope[h] * T.cast(i - kpos, T.f32)
        s = T.where(kpos <= i, s, -math.inf)
        e = T.exp(s - T.max(s))
        o[b, h, i, dims] = T.cast(T.vecmat(e, T.cast(v[b, h, keys, dims], T.f32)) / T.sum(e), T.bf16)


KERNEL = alibi_causal_attention


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def _slopes(H):
    # the ALiBi paper's geometric slopes 2^(-8 (h + 1) / H)
    return (2.0 ** (-8.0 * (np.arange(H) + 1) / H)).astype(np.float32)


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return dict(q=rng.standard_normal((B, H, S, D)).astype(np.float32),
                k=rng.standard_normal((B, H, S, D)).astype(np.float32),
                v=rng.standard_normal((B, H, S, D)).astype(np.float32),
                slope=_slopes(H), scale=1.0 / math.sqrt(D))


def reference(q, k, v, slope, scale):
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    S = q.shape[2]
    s = np.einsum("bhid,bhjd->bhij", q, k) * np.float32(scale)
    dist = (np.arange(S)[:, None] - np.arange(S)[None, :]).astype(np.float64)
    s = s - slope.astype(np.float64)[None, :, None, None] * dist
    s = np.where(dist >= 0, s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    out = (e / e.sum(axis=-1, keepdims=True)) @ v
    return {"o": _bf16(out.astype(np.float32))}


def peer(q, k, v, slope, scale):
    # SDPA with a float bias mask (bf16, the query's dtype): -slope[h] * (i - j), -inf above the diagonal
    import torch
    import torch.nn.functional as F
    S = q.shape[2]
    pos = torch.arange(S, device=q.device)
    dist = (pos[:, None] - pos[None, :]).float()
    bias = -slope[:, None, None] * dist
    bias = bias.masked_fill(dist < 0, float("-inf"))[None].to(q.dtype)
    return {"o": F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=scale)}


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return 2 * B * H * S * S * D, 2 * 4 * B * H * S * D


TEST_SHAPES = [dict(B=1, H=1, S=1, D=1), dict(B=1, H=3, S=17, D=8), dict(B=2, H=2, S=67, D=16)]
BENCH_SHAPE = dict(B=4, H=16, S=2048, D=128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
BENCH_TOLERANCE = dict(rtol=3e-2, atol=3e-2)
PEER = "SDPA with a float bias mask"
