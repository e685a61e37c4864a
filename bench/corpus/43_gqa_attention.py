"""Grouped-query attention, non-causal: HQ query heads share HKV key/value heads (query head h reads
KV head h // (HQ / HKV)); O = softmax(scale Q.K^T) . V with Q [B,HQ,S,D], K/V [B,HKV,T,D].
B4 HQ32 HKV8 S=T=4096 D128 bf16. Peer: SDPA with enable_gqa=True."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gqa_attention(q: T.In[T.bf16, ("B", "HQ", "S", "D")],
                  k: T.In[T.bf16, ("B", "HKV", "T", "D")],
                  v: T.In[T.bf16, ("B", "HKV", "T", "D")],
                  o: T.Out[T.bf16, ("B", "HQ", "S", "D")],
                  scale: T.f32):
    B, HQ, S, D = q.shape
    HKV = k.shape[1]
    group = HQ // HKV
    keys = k.domain(2)
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, HQ), T.domain(0, S)):
        kvh = h // group
        s = T.matvec(k[b, kvh, keys, dims], q[b, h, i, dims]) * scale   # f32 over keys
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.bf16), v[b, kvh, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.bf16)


KERNEL = gqa_attention


def inputs(shape, rng):
    B, HQ, HKV, S, Tk, D = (shape[n] for n in ("B", "HQ", "HKV", "S", "T", "D"))
    return dict(q=rng.standard_normal((B, HQ, S, D), dtype=np.float32),
                k=rng.standard_normal((B, HKV, Tk, D), dtype=np.float32),
                v=rng.standard_normal((B, HKV, Tk, D), dtype=np.float32),
                scale=1.0 / math.sqrt(D))


def reference(q, k, v, scale):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, scale):
    import torch.nn.functional as F
    return dict(o=F.scaled_dot_product_attention(q, k, v, scale=scale, enable_gqa=True))


TEST_SHAPES = [dict(B=1, HQ=1, HKV=1, S=1, T=1, D=16), dict(B=1, HQ=4, HKV=2, S=19, T=37, D=32),
               dict(B=2, HQ=3, HKV=1, S=23, T=13, D=24)]
BENCH_SHAPE = dict(B=4, HQ=32, HKV=8, S=4096, T=4096, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.nn.functional.scaled_dot_product_attention(enable_gqa=True)"


def OPS(shape):
    B, HQ, HKV, S, Tk, D = (shape[n] for n in ("B", "HQ", "HKV", "S", "T", "D"))
    return 4 * B * HQ * S * Tk * D, 2 * B * D * (2 * HQ * S + 2 * HKV * Tk)
