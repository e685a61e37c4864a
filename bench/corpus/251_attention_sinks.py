"""Causal grouped-query attention with learned attention sinks (gpt-oss): each head h has a sink logit
sinks[h] that joins every query's softmax denominator but has no value: with s_j = scale * q_i . k_j over
the visible keys j <= i and m = max(max_j s_j, sinks[h]), out_i = sum_j exp(s_j - m) v_j / (sum_j exp(s_j
- m) + exp(sinks[h] - m)). q [B, H, S, D], k and v [B, HKV, S, D] bf16 (query head h reads kv head h //
(H / HKV)), sinks f32 [H], out bf16. B4 H64 HKV8 S4096 D64. Peer: torch (gpt-oss's reference sdpa with
sinks, eager)."""
import math
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def attention_sinks(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "HKV", "S", "D")],
                    v: T.In[T.bf16, ("B", "HKV", "S", "D")], sinks: T.In[T.f32, ("H",)],
                    out: T.Out[T.bf16, ("B", "H", "S", "D")]):
    B, H, S, D = q.shape
    G = H // k.shape[1]
    keys, dims = T.domain(0, S), T.domain(0, D)
    scale = T.rsqrt(T.cast(D, T.f32))
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h // G, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(T.indices(keys) <= i, s, -math.inf)
        sink = sinks[h]
        m = T.maximum(T.max(s), sink)
        e = T.exp(s - m)
        den = T.sum(e) + T.exp(sink - m)
        o = T.vecmat(T.cast(e, T.bf16), v[b, h // G, keys, dims])
        out[b, h, i, dims] = T.cast(o / den, T.bf16)


KERNEL = attention_sinks


def inputs(shape, rng):
    B, H, HKV, S, D = shape["B"], shape["H"], shape["HKV"], shape["S"], shape["D"]
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    return dict(q=f(B, H, S, D), k=f(B, HKV, S, D), v=f(B, HKV, S, D), sinks=f(H))


def reference(q, k, v, sinks):
    B, H, S, D = q.shape
    G = H // k.shape[1]
    kk, vv = np.repeat(k, G, axis=1).astype(np.float64), np.repeat(v, G, axis=1).astype(np.float64)
    s = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), kk) / math.sqrt(D)
    s = np.where(np.tril(np.ones((S, S), bool)), s, -np.inf)
    sk = sinks.astype(np.float64)[None, :, None, None]
    m = np.maximum(s.max(-1, keepdims=True), sk)
    e = np.exp(s - m)
    return dict(out=np.einsum("bhij,bhjd->bhid", e, vv) / (e.sum(-1, keepdims=True) + np.exp(sk - m)))


def peer(q, k, v, sinks):
    import torch
    B, H, S, D = q.shape
    G = H // k.shape[1]
    kk, vv = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    s = torch.einsum("bhid,bhjd->bhij", q.float(), kk.float()) / math.sqrt(D)
    s = s.masked_fill(~torch.ones(S, S, dtype=torch.bool, device=q.device).tril(), float("-inf"))
    s = torch.cat([s, sinks.float()[None, :, None, None].expand(B, H, S, 1)], dim=-1)
    p = torch.softmax(s, dim=-1)[..., :-1]
    return dict(out=torch.einsum("bhij,bhjd->bhid", p.to(v.dtype), vv).to(q.dtype))


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return 2 * B * H * S * S * D, 2 * B * (2 * H + 2 * shape["HKV"]) * S * D


TEST_SHAPES = [dict(B=1, H=1, HKV=1, S=1, D=1), dict(B=1, H=4, HKV=2, S=5, D=3), dict(B=2, H=3, HKV=1, S=11, D=4)]
BENCH_SHAPE = dict(B=4, H=64, HKV=8, S=4096, D=64)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch"
