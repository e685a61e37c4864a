"""Chunked prefill attention: a chunk of C new queries at absolute positions P..P+C-1 attends to the P
cached keys plus the chunk's own keys causally. q [B, H, C, D], k/v [B, H, P+C, D] f16 (keys 0..P-1 are
the cache, then the chunk), a runtime offset P; query c sees key j when j <= P + c;
o = softmax(scale * q.k) . v. Bench B4 H32 C512 P3584 D128. Peer: SDPA with an explicit mask."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel(numerics="relaxed_normalization")
def chunked_prefill(q: T.In[T.f16, ("B", "H", "C", "D")],
                    k: T.In[T.f16, ("B", "H", "L", "D")],      # L = P + C (not declarable)
                    v: T.In[T.f16, ("B", "H", "L", "D")],
                    o: T.Out[T.f16, ("B", "H", "C", "D")],
                    past: T.i32,                                # P: cached keys before the chunk
                    scale: T.f32):
    B, H, C, D = q.shape
    L = k.shape[2]
    keys = T.domain(0, L)
    dims = T.domain(0, D)
    for b, h, c in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, C)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, c, dims]) * scale          # f32 [L]
        visible = T.indices(keys) <= c + T.cast(past, T.index)
        s = T.where(visible, s, -math.inf)
        mx = T.max(s)
        p = T.exp(s - mx)
        den = T.sum(p)
        acc = T.vecmat(T.cast(p, T.f16), v[b, h, keys, dims])                # f32 [D]
        o[b, h, c, dims] = T.cast(acc / den, T.f16)


KERNEL = chunked_prefill


def inputs(shape, rng):
    B, H, C, L, D = shape["B"], shape["H"], shape["C"], shape["L"], shape["D"]
    assert L >= C
    return {
        "q": rng.standard_normal((B, H, C, D)).astype(np.float16),
        "k": rng.standard_normal((B, H, L, D)).astype(np.float16),
        "v": rng.standard_normal((B, H, L, D)).astype(np.float16),
        "past": L - C,
        "scale": 1.0 / math.sqrt(D),
    }


def reference(q, k, v, past, scale):
    q, k, v = (np.asarray(t, dtype=np.float32) for t in (q, k, v))
    B, H, C, D = q.shape
    L = k.shape[2]
    mask = np.arange(L)[None, :] <= (past + np.arange(C))[:, None]          # [C, L]
    s = np.einsum("bhcd,bhld->bhcl", q, k) * np.float32(scale)
    s = np.where(mask, s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    out = np.einsum("bhcl,bhld->bhcd", p, v) / p.sum(axis=-1, keepdims=True)
    return {"o": out.astype(np.float16)}


def peer(q, k, v, past, scale):
    import torch
    C, L = q.shape[2], k.shape[2]
    mask = torch.arange(L, device=q.device)[None, :] <= (past + torch.arange(C, device=q.device))[:, None]
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    return {"o": o}


# L = P + C: P = 0 (no cache), P = 32, P = 88
TEST_SHAPES = [dict(B=1, H=1, C=1, L=1, D=1), dict(B=2, H=3, C=5, L=37, D=24),
               dict(B=1, H=2, C=43, L=131, D=40)]
BENCH_SHAPE = dict(B=4, H=32, C=512, L=4096, D=128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "SDPA with an explicit boolean mask"


def OPS(shape):
    B, H, C, L, D = shape["B"], shape["H"], shape["C"], shape["L"], shape["D"]
    P = L - C
    pairs = C * P + C * (C + 1) // 2          # visible (query, key) pairs
    flops = 4 * B * H * D * pairs
    byts = 2 * B * H * D * (2 * C + 2 * L)
    return flops, byts
