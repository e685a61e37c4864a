"""Sliding-window decode attention over a rolling-buffer KV cache (Mistral's RotatingBufferCache, as
mistral-inference and vLLM serve sliding-window models): each sequence b keeps only its last W keys and
values in a ring buffer k_cache, v_cache bf16 [B, W, HKV, D], the key of absolute position t stored at slot
t % W (keys are cached already rotated, so a slot's position does not enter the scores). The new token of
sequence b is at position pos[b] (i32, its key already written), so the slots holding positions
max(0, pos[b] - W + 1) .. pos[b] are valid: all W of them once pos[b] >= W - 1, else slots 0 .. pos[b].
One query per sequence, grouped-query heads (query head h reads KV head h // (HQ / HKV)): out[b, h] =
softmax(scale * q[b, h] . K_valid^T) . V_valid, bf16 [B, HQ, D]. B32 HQ32 HKV8 W4096 D128.
Peer: SDPA with a boolean slot mask (torch.compile)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def ring_swa_decode(q: T.In[T.bf16, ("B", "HQ", "D")], k_cache: T.In[T.bf16, ("B", "W", "HKV", "D")],
                    v_cache: T.In[T.bf16, ("B", "W", "HKV", "D")], pos: T.In[T.i32, ("B",)],
                    out: T.Out[T.bf16, ("B", "HQ", "D")], scale: T.f32):
    B, HQ, D = q.shape
    W, HKV = k_cache.shape[1], k_cache.shape[2]
    G = HQ // HKV
    dims = T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, HQ)):
        n = T.minimum(pos[b] + 1, T.cast(W, T.i32))      # filled slots of the ring
        slots = T.domain(0, n)
        qv = T.cast(q[b, h, dims], T.f32)
        s = T.matvec(T.cast(k_cache[b, slots, h // G, dims], T.f32), qv) * scale
        e = T.exp(s - T.max(s))
        o = T.vecmat(e, T.cast(v_cache[b, slots, h // G, dims], T.f32)) / T.sum(e)
        out[b, h, dims] = T.cast(o, T.bf16)


KERNEL = ring_swa_decode


def inputs(shape, rng):
    B, HQ, HKV, W, D = shape["B"], shape["HQ"], shape["HKV"], shape["W"], shape["D"]
    pos = rng.integers(0, 3 * W, size=B)
    if B > 1:
        pos[0] = 0                      # the first token: one valid slot
    if B > 2:
        pos[1] = W - 1                  # exactly full
    return dict(q=rng.standard_normal((B, HQ, D)).astype(np.float32),
                k_cache=rng.standard_normal((B, W, HKV, D)).astype(np.float32),
                v_cache=rng.standard_normal((B, W, HKV, D)).astype(np.float32),
                pos=pos.astype(np.int32), scale=1.0 / math.sqrt(D))


def reference(q, k_cache, v_cache, pos, scale):
    B, HQ, D = q.shape
    W, HKV = k_cache.shape[1], k_cache.shape[2]
    G = HQ // HKV
    out = np.zeros((B, HQ, D))
    for b in range(B):
        p = int(pos[b])
        slots = [t % W for t in range(max(0, p - W + 1), p + 1)]
        for h in range(HQ):
            k = k_cache[b, slots, h // G].astype(np.float64)
            v = v_cache[b, slots, h // G].astype(np.float64)
            s = scale * (k @ q[b, h].astype(np.float64))
            e = np.exp(s - s.max())
            out[b, h] = e @ v / e.sum()
    return dict(out=out)


def peer(q, k_cache, v_cache, pos, scale):
    import torch
    B, HQ, D = q.shape
    W, HKV = k_cache.shape[1], k_cache.shape[2]
    k = k_cache.transpose(1, 2).repeat_interleave(HQ // HKV, dim=1)         # [B, HQ, W, D]
    v = v_cache.transpose(1, 2).repeat_interleave(HQ // HKV, dim=1)
    valid = torch.arange(W, device=q.device)[None, :] <= pos.long()[:, None]  # [B, W]
    o = torch.nn.functional.scaled_dot_product_attention(q[:, :, None], k, v, attn_mask=valid[:, None, None],
                                                          scale=scale)
    return dict(out=o[:, :, 0])


def OPS(shape):
    B, HQ, HKV, W, D = shape["B"], shape["HQ"], shape["HKV"], shape["W"], shape["D"]
    return 4 * B * HQ * W * D, 2 * 2 * B * W * HKV * D + 4 * B * HQ * D


TEST_SHAPES = [dict(B=1, HQ=1, HKV=1, W=1, D=1), dict(B=3, HQ=2, HKV=1, W=5, D=16),
               dict(B=5, HQ=6, HKV=3, W=37, D=32)]
BENCH_SHAPE = dict(B=32, HQ=32, HKV=8, W=4096, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
