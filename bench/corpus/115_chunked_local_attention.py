"""Chunked local attention (Llama-4 style): a query at position i sees key j only if j <= i and i // C == j // C, C = 512 given as a runtime integer. B4 H32 S8192 D128 bf16, scale 1/sqrt(D). Peer: FlexAttention (if you cannot write a FlexAttention peer, SDPA with an explicit boolean mask)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel(numerics="relaxed_normalization")
def chunked_local_attention(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "H", "S", "D")],
                            v: T.In[T.bf16, ("B", "H", "S", "D")], o: T.Out[T.bf16, ("B", "H", "S", "D")],
                            chunk: T.i32):
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    kpos = T.indices(keys)
    scale = T.rsqrt(T.cast(D, T.f32))
    C = T.cast(chunk, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        visible = (kpos <= i) & (kpos >= (i // C) * C)
        s = T.where(visible, s, -math.inf)
        p = T.exp(s - T.max(s))
        p = p / T.sum(p)
        o[b, h, i, dims] = T.cast(T.vecmat(p, T.cast(v[b, h, keys, dims], T.f32)), T.bf16)


KERNEL = chunked_local_attention


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return {n: rng.standard_normal((B, H, S, D)).astype(np.float32) for n in ("q", "k", "v")} | \
        {"chunk": shape.get("C", 512)}


def reference(q, k, v, chunk):
    S, D = q.shape[-2:]
    s = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), k.astype(np.float64)) / np.sqrt(np.float32(D))
    i, j = np.arange(S)[:, None], np.arange(S)[None, :]
    s = np.where((j <= i) & (i // chunk == j // chunk), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return {"o": _bf16((p @ v.astype(np.float64)).astype(np.float32))}


def peer(q, k, v, chunk):
    import torch
    from torch.nn.attention.flex_attention import flex_attention, create_block_mask

    def chunked_causal(b, h, qi, kj):
        return (kj <= qi) & (qi // chunk == kj // chunk)

    B, H, S, D = q.shape
    mask = create_block_mask(chunked_causal, None, None, S, S, device=q.device)
    return {"o": flex_attention(q, k, v, block_mask=mask)}


TEST_SHAPES = [dict(B=1, H=1, S=1, D=1, C=1), dict(B=1, H=2, S=13, D=16, C=4), dict(B=2, H=1, S=37, D=33, C=5)]
BENCH_SHAPE = dict(B=4, H=32, S=8192, D=128, C=512)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "FlexAttention"
