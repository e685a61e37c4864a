"""Decode attention over a KV cache that holds keys before the rotary embedding, rotated as they are read
(StreamingLLM / H2O-style caches, which evict keys and so give each cached key its position in the cache,
not its original one): for sequence b with n = seq_lens[b] cached tokens (i32 [B], 1 <= n <= S), the new
query q bf16 [B, HQ, D] is at position n - 1 and cached key j at position j; with rotate-half RoPE,
rot(x, p) = (x1 cos[p] - x2 sin[p], x2 cos[p] + x1 sin[p]) for the halves x1, x2 of x and cos, sin f32
[P, D/2] the tables, the scores are scale * rot(q[b, h], n - 1) . rot(k_cache[b, h // G, j], j) over j < n
(G = HQ / HKV query heads per KV head; k_cache, v_cache bf16 [B, HKV, S, D]) and out[b, h] = softmax(scores)
@ v_cache[b, h // G, :n], bf16 [B, HQ, D] (f32 math). B32 HQ32 HKV8 S8192 D128. Peer: torch.compile of
rotating the cache's keys, then SDPA with the length mask."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rope_on_read_decode(q: T.In[T.bf16, ("B", "HQ", "D")], k_cache: T.In[T.bf16, ("B", "HKV", "S", "D")],
                        v_cache: T.In[T.bf16, ("B", "HKV", "S", "D")], seq_lens: T.In[T.i32, ("B",)],
                        cos: T.In[T.f32, ("P", "D2")], sin: T.In[T.f32, ("P", "D2")],
                        out: T.Out[T.bf16, ("B", "HQ", "D")], scale: T.f32):
    B, HQ, D = q.shape
    HKV = k_cache.shape[1]
    H2 = cos.shape[1]
    G = HQ // HKV
    dims, half = T.domain(0, D), T.domain(0, H2)
    lo, hi = dims[0:H2], dims[H2:2 * H2]
    for b, h in T.parallel(T.domain(0, B), T.domain(0, HQ)):
        n = T.cast(seq_lens[b], T.index)
        keys = T.domain(0, n)
        kh = h // G
        qc, qs = cos[n - 1, half], sin[n - 1, half]
        q1, q2 = T.cast(q[b, h, lo], T.f32), T.cast(q[b, h, hi], T.f32)
        qr1, qr2 = q1 * qc - q2 * qs, q2 * qc + q1 * qs
        kc, ks = cos[keys, half], sin[keys, half]
        k1, k2 = T.cast(k_cache[b, kh, keys, lo], T.f32), T.cast(k_cache[b, kh, keys, hi], T.f32)
        kr1, kr2 = k1 * kc - k2 * ks, k2 * kc + k1 * ks
        s = (T.sum(kr1 * qr1, axis=1) + T.sum(kr2 * qr2, axis=1)) * scale
        e = T.exp(s - T.max(s))
        o = T.vecmat(e, T.cast(v_cache[b, kh, keys, dims], T.f32)) / T.sum(e)
        out[b, h, dims] = T.cast(o, T.bf16)


KERNEL = rope_on_read_decode


def _tables(P, D2):
    inv = 10000.0 ** (-np.arange(D2, dtype=np.float64) * 2.0 / (2 * D2))
    ang = np.arange(P, dtype=np.float64)[:, None] * inv[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def inputs(shape, rng):
    B, HQ, HKV, S, D, P, D2 = (shape[k] for k in ("B", "HQ", "HKV", "S", "D", "P", "D2"))
    assert D == 2 * D2 and HQ % HKV == 0 and P >= S
    c, s = _tables(P, D2)
    lens = rng.integers(1, S + 1, B).astype(np.int32)
    lens[0] = S
    return dict(q=rng.standard_normal((B, HQ, D)).astype(np.float32),
                k_cache=rng.standard_normal((B, HKV, S, D)).astype(np.float32),
                v_cache=rng.standard_normal((B, HKV, S, D)).astype(np.float32),
                seq_lens=lens, cos=c, sin=s, scale=1.0 / math.sqrt(D))


def _rot(x, c, s):
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)


def reference(q, k_cache, v_cache, seq_lens, cos, sin, scale):
    B, HQ, D = q.shape
    G = HQ // k_cache.shape[1]
    out = np.zeros((B, HQ, D))
    c64, s64 = cos.astype(np.float64), sin.astype(np.float64)
    for b in range(B):
        n = int(seq_lens[b])
        for h in range(HQ):
            qr = _rot(q[b, h].astype(np.float64), c64[n - 1], s64[n - 1])
            kr = _rot(k_cache[b, h // G, :n].astype(np.float64), c64[:n], s64[:n])
            sc = kr @ qr * scale
            e = np.exp(sc - sc.max())
            out[b, h] = e @ v_cache[b, h // G, :n] / e.sum()
    return dict(out=out)


def peer(q, k_cache, v_cache, seq_lens, cos, sin, scale):
    import torch
    import torch.nn.functional as F
    B, HQ, D = q.shape
    HKV, S = k_cache.shape[1], k_cache.shape[2]
    h2 = D // 2
    pos = (seq_lens.long() - 1)
    qf, kf = q.float(), k_cache.float()
    rot = lambda x, c, s: torch.cat([x[..., :h2] * c - x[..., h2:] * s, x[..., h2:] * c + x[..., :h2] * s], -1)
    qr = rot(qf, cos[pos][:, None, :], sin[pos][:, None, :])
    kr = rot(kf, cos[:S][None, None], sin[:S][None, None])
    mask = torch.arange(S, device=q.device)[None, :] < seq_lens[:, None].long()
    o = F.scaled_dot_product_attention(qr[:, :, None].to(q.dtype), kr.to(q.dtype), v_cache,
                                       attn_mask=mask[:, None, None, :], scale=scale, enable_gqa=True)
    return dict(out=o[:, :, 0])


def OPS(shape):
    B, HQ, HKV, S, D = (shape[k] for k in ("B", "HQ", "HKV", "S", "D"))
    return 4 * B * HQ * S * D, 2 * 2 * B * HKV * S * D + 8 * S * D


TEST_SHAPES = [dict(B=1, HQ=1, HKV=1, S=1, D=2, P=1, D2=1),
               dict(B=2, HQ=4, HKV=2, S=13, D=6, P=13, D2=3),
               dict(B=3, HQ=3, HKV=1, S=67, D=16, P=70, D2=8)]
BENCH_SHAPE = dict(B=32, HQ=32, HKV=8, S=8192, D=128, P=8192, D2=64)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
