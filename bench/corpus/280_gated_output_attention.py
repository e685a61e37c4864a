"""Causal grouped-query attention with an elementwise sigmoid output gate (Qwen3-Next's gated
attention): o_i = softmax_j<=i(scale * <q_i, k_j>) V over the keys of the query head's KV group
(head h reads KV head h // (HQ / HKV)), then out_i = o_i * sigmoid(gate_i), with Q and the gate
[B, HQ, S, D], K and V [B, HKV, S, D] (bf16), out bf16 [B, HQ, S, D]; f32 softmax and accumulation.
B1 HQ16 HKV2 S8192 D256. Peer: SDPA (flash, enable_gqa) followed by torch.compile's gate."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gated_output_attention(q: T.In[T.bf16, ("B", "HQ", "S", "D")], k: T.In[T.bf16, ("B", "HKV", "S", "D")],
                           v: T.In[T.bf16, ("B", "HKV", "S", "D")], gate: T.In[T.bf16, ("B", "HQ", "S", "D")],
                           out: T.Out[T.bf16, ("B", "HQ", "S", "D")], scale: T.f32):
    B, HQ, S, D = q.shape
    G = HQ // k.shape[1]
    keys, dims = T.domain(0, S), T.domain(0, D)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, HQ), T.domain(0, S)):
        s = T.matvec(k[b, h // G, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(kpos <= i, s, -math.inf)
        e = T.exp(s - T.max(s))
        o = T.vecmat(e, T.cast(v[b, h // G, keys, dims], T.f32)) / T.sum(e)
        g = T.cast(gate[b, h, i, dims], T.f32)
        out[b, h, i, dims] = T.cast(o * T.sigmoid(g), T.bf16)


KERNEL = gated_output_attention


def inputs(shape, rng):
    B, HQ, HKV, S, D = shape["B"], shape["HQ"], shape["HKV"], shape["S"], shape["D"]
    assert HQ % HKV == 0
    return dict(q=rng.standard_normal((B, HQ, S, D)).astype(np.float32),
                k=rng.standard_normal((B, HKV, S, D)).astype(np.float32),
                v=rng.standard_normal((B, HKV, S, D)).astype(np.float32),
                gate=rng.standard_normal((B, HQ, S, D)).astype(np.float32), scale=1.0 / math.sqrt(D))


def reference(q, k, v, gate, scale):
    G = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, G, axis=1).astype(np.float64), np.repeat(v, G, axis=1).astype(np.float64)
    s = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), k) * np.float32(scale)
    S = q.shape[2]
    s = np.where(np.tril(np.ones((S, S), dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    o = np.einsum("bhij,bhjd->bhid", p / p.sum(axis=-1, keepdims=True), v)
    return dict(out=o / (1.0 + np.exp(-gate.astype(np.float64))))


def peer(q, k, v, gate, scale):
    import torch
    import torch.nn.functional as F
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=True)
    return dict(out=(o.float() * torch.sigmoid(gate.float())).to(q.dtype))


def OPS(shape):
    B, HQ, HKV, S, D = shape["B"], shape["HQ"], shape["HKV"], shape["S"], shape["D"]
    return 2 * 2 * B * HQ * S * S * D // 2, 2 * (3 * B * HQ * S * D + 2 * B * HKV * S * D)


TEST_SHAPES = [dict(B=1, HQ=1, HKV=1, S=1, D=16), dict(B=1, HQ=4, HKV=2, S=37, D=32),
               dict(B=2, HQ=6, HKV=2, S=97, D=64)]
BENCH_SHAPE = dict(B=1, HQ=16, HKV=2, S=8192, D=256)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch SDPA"
