"""Grouped-query decode attention with logit soft-capping and a sliding window (Gemma 2's decode step, as
vLLM / FlashInfer serve it with logits_soft_cap and window_left; Gemma 2 alternates local layers of a
4096-token window with global ones, which pass a window past the context): one new query per sequence,
q bf16 [B, HQ, D]; sequence b has n = seq_lens[b] cached tokens (i32 [B], 1 <= n <= S) in k_cache, v_cache
bf16 [B, HKV, S, D], the query at position n - 1; query head h reads KV head h // (HQ / HKV). Key j is
visible when j < n and n - 1 - j < window (a runtime i32); s_j = softcap * tanh(scale * q . k_j / softcap)
(scale and softcap runtime f32) and out[b, h] = softmax over the visible keys of s, times V, f32 math,
bf16 [B, HQ, D]. B32 HQ32 HKV16 S8192 D128 (Gemma-2-27B, scale 144^-0.5, softcap 50), window 4096.
Peer: torch.compile of the masked formula (FlexAttention's score_mod and mask_mod compute the same)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gqa_decode_softcap(q: T.In[T.bf16, ("B", "HQ", "D")], k_cache: T.In[T.bf16, ("B", "HKV", "S", "D")],
                       v_cache: T.In[T.bf16, ("B", "HKV", "S", "D")], seq_lens: T.In[T.i32, ("B",)],
                       out: T.Out[T.bf16, ("B", "HQ", "D")], scale: T.f32, softcap: T.f32, window: T.i32):
    B, HQ, D = q.shape
    HKV = k_cache.shape[1]
    G = HQ // HKV
    dims = T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, HQ)):
        n = seq_lens[b]
        start = T.maximum(n - window, 0)
        keys = T.domain(start, n)
        kv = h // G
        qv = T.cast(q[b, h, dims], T.f32)
        s = T.matvec(T.cast(k_cache[b, kv, keys, dims], T.f32), qv) * scale
        s = softcap * T.tanh(s / softcap)
        e = T.exp(s - T.max(s))
        o = T.vecmat(e, T.cast(v_cache[b, kv, keys, dims], T.f32)) / T.sum(e)
        out[b, h, dims] = T.cast(o, T.bf16)


KERNEL = gqa_decode_softcap


def inputs(shape, rng):
    B, HQ, HKV, S, D = shape["B"], shape["HQ"], shape["HKV"], shape["S"], shape["D"]
    lens = rng.integers(1, S + 1, B)
    if B:
        lens[0] = S
    return dict(q=rng.standard_normal((B, HQ, D)).astype(np.float32),
                k_cache=(rng.standard_normal((B, HKV, S, D)) * 2.0).astype(np.float32),
                v_cache=rng.standard_normal((B, HKV, S, D)).astype(np.float32),
                seq_lens=lens.astype(np.int32), scale=float(1.0 / math.sqrt(max(D, 1))), softcap=3.0,
                window=int(max(1, (2 * S) // 3)))


def reference(q, k_cache, v_cache, seq_lens, scale, softcap, window):
    B, HQ, D = q.shape
    G = HQ // k_cache.shape[1]
    out = np.zeros((B, HQ, D))
    for b in range(B):
        n = int(seq_lens[b])
        lo = max(n - window, 0)
        for h in range(HQ):
            kk = k_cache[b, h // G, lo:n].astype(np.float64)
            s = kk @ q[b, h].astype(np.float64) * scale
            s = softcap * np.tanh(s / softcap)
            p = np.exp(s - s.max())
            out[b, h] = (p / p.sum()) @ v_cache[b, h // G, lo:n].astype(np.float64)
    return dict(out=out)


def peer(q, k_cache, v_cache, seq_lens, scale, softcap, window):
    import torch
    B, HQ, D = q.shape
    HKV, S = k_cache.shape[1], k_cache.shape[2]
    G = HQ // HKV
    k = k_cache.float().repeat_interleave(G, dim=1)
    v = v_cache.float().repeat_interleave(G, dim=1)
    s = torch.einsum("bhd,bhsd->bhs", q.float(), k) * scale
    s = softcap * torch.tanh(s / softcap)
    j = torch.arange(S, device=q.device)[None, :]
    n = seq_lens.long()[:, None]
    vis = (j < n) & (n - 1 - j < window)
    s = s.masked_fill(~vis[:, None, :], float("-inf"))
    p = torch.softmax(s, dim=-1)
    return dict(out=torch.einsum("bhs,bhsd->bhd", p, v).to(torch.bfloat16))


def OPS(shape):
    B, HQ, HKV, S, D = shape["B"], shape["HQ"], shape["HKV"], shape["S"], shape["D"]
    w = min(S, 4096)
    return 4 * B * HQ * w * D, 4 * B * HKV * w * D + 4 * B * HQ * D


TEST_SHAPES = [dict(B=1, HQ=1, HKV=1, S=1, D=1), dict(B=2, HQ=2, HKV=1, S=11, D=4),
               dict(B=2, HQ=6, HKV=2, S=37, D=16)]
BENCH_SHAPE = dict(B=32, HQ=32, HKV=16, S=8192, D=128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
