"""Attention with per-sequence key lengths: each batch b has len[b] valid keys (int32 [B], random in [1, S]); a query attends to keys j < len[b] only (non-causal); B8 H16 S2048 D128 bf16, scale 1/sqrt(D). Peer: SDPA with a boolean mask (or FlexAttention)."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def varlen_key_attention(Q: T.In[T.bf16, ("B", "H", "S", "D")], K: T.In[T.bf16, ("B", "H", "S", "D")],
                         V: T.In[T.bf16, ("B", "H", "S", "D")], lens: T.In[T.i32, ("B",)],
                         O: T.Out[T.bf16, ("B", "H", "S", "D")]):
    B, H, S, D = Q.shape
    dims = T.domain(0, D)
    scale = T.rsqrt(T.cast(D, T.f32))
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        keys = T.domain(0, lens[b])
        s = T.matvec(K[b, h, keys, dims], Q[b, h, i, dims], acc_dtype=T.f32) * scale
        e = T.exp(s - T.max(s))
        O[b, h, i, dims] = T.cast(T.vecmat(e, T.cast(V[b, h, keys, dims], T.f32)) / T.sum(e), T.bf16)


KERNEL = varlen_key_attention


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    s = (B, H, S, D)
    return {"Q": rng.standard_normal(s).astype(np.float32), "K": rng.standard_normal(s).astype(np.float32),
            "V": rng.standard_normal(s).astype(np.float32),
            "lens": rng.integers(1, S + 1, size=B).astype(np.int32)}


def reference(Q, K, V, lens):
    q, k, v = (a.astype(np.float64) for a in (Q, K, V))
    out = np.zeros(q.shape)
    D = q.shape[-1]
    for b in range(q.shape[0]):
        n = int(lens[b])
        s = np.einsum("hsd,htd->hst", q[b], k[b, :, :n]) / np.sqrt(D)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        out[b] = (p / p.sum(axis=-1, keepdims=True)) @ v[b, :, :n]
    return {"O": out}


def peer(Q, K, V, lens):
    import torch
    import torch.nn.functional as F
    S = K.shape[2]
    mask = (torch.arange(S, device=K.device)[None, :] < lens[:, None].to(K.device))[:, None, None, :]
    return {"O": F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)}


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return 4 * B * H * S * S * D // 2, 4 * 2 * B * H * S * D


TEST_SHAPES = [dict(B=1, H=1, S=1, D=1), dict(B=3, H=2, S=37, D=5), dict(B=2, H=3, S=131, D=17)]
BENCH_SHAPE = dict(B=8, H=16, S=2048, D=128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "SDPA with a boolean mask"
