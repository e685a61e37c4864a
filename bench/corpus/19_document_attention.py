"""Document-masked causal attention over packed sequences: q, k, v [B, H, S, D] f16 and a per-token
document id doc[B, S] (int32, nondecreasing along S); a query at position i sees key j when j <= i and
doc[b, j] == doc[b, i]; o = softmax(scale * q.k) . v. Bench B2 H16 S8192 D128 with documents of random
lengths 100-2000. Peer: FlexAttention with a document block mask."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel(numerics="relaxed_normalization")
def document_attention(q: T.In[T.f16, ("B", "H", "S", "D")],
                       k: T.In[T.f16, ("B", "H", "S", "D")],
                       v: T.In[T.f16, ("B", "H", "S", "D")],
                       doc: T.In[T.i32, ("B", "S")],
                       o: T.Out[T.f16, ("B", "H", "S", "D")],
                       scale: T.f32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale          # f32 [S]
        visible = (T.indices(keys) <= i) & (doc[b, keys] == doc[b, i])
        s = T.where(visible, s, -math.inf)
        mx = T.max(s)
        p = T.exp(s - mx)
        den = T.sum(p)
        acc = T.vecmat(T.cast(p, T.f16), v[b, h, keys, dims])                # f32 [D]
        o[b, h, i, dims] = T.cast(acc / den, T.f16)


KERNEL = document_attention


def _docs(S, rng, lo, hi):
    ids = np.empty(S, dtype=np.int32)
    pos, d = 0, 0
    while pos < S:
        n = int(rng.integers(lo, hi + 1))
        ids[pos:pos + n] = d
        pos += n
        d += 1
    return ids


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    if S >= 4096:
        lo, hi = 100, 2000
    else:
        lo, hi = 1, max(2, S // 3)
    return {
        "q": rng.standard_normal((B, H, S, D)).astype(np.float16),
        "k": rng.standard_normal((B, H, S, D)).astype(np.float16),
        "v": rng.standard_normal((B, H, S, D)).astype(np.float16),
        "doc": np.stack([_docs(S, rng, lo, hi) for _ in range(B)]),
        "scale": 1.0 / math.sqrt(D),
    }


def reference(q, k, v, doc, scale):
    q, k, v = (np.asarray(t, dtype=np.float32) for t in (q, k, v))
    B, H, S, D = q.shape
    pos = np.arange(S)
    out = np.empty((B, H, S, D), dtype=np.float32)
    for b in range(B):
        mask = (pos[None, :] <= pos[:, None]) & (doc[b][None, :] == doc[b][:, None])
        for h in range(H):
            s = (q[b, h] @ k[b, h].T) * np.float32(scale)
            s = np.where(mask, s, -np.inf)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            out[b, h] = (p @ v[b, h]) / p.sum(axis=1, keepdims=True)
    return {"o": out.astype(np.float16)}


_flex = None


def peer(q, k, v, doc, scale):
    import torch
    global _flex
    B, H, S, D = q.shape
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        if q.device.type != "cuda":
            raise RuntimeError("FlexAttention peer wants CUDA")
    except Exception:
        pos = torch.arange(S, device=q.device)
        mask = (pos[None, :] <= pos[:, None])[None] & (doc[:, None, :] == doc[:, :, None])
        o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None],
                                                             scale=scale)
        return {"o": o}
    if _flex is None:
        _flex = torch.compile(flex_attention)

    def document_causal(b, h, q_idx, kv_idx):
        return (kv_idx <= q_idx) & (doc[b, kv_idx] == doc[b, q_idx])

    block_mask = create_block_mask(document_causal, B, None, S, S, device=q.device)
    return {"o": _flex(q, k, v, block_mask=block_mask, scale=scale)}


TEST_SHAPES = [dict(B=1, H=1, S=1, D=1), dict(B=2, H=3, S=37, D=24), dict(B=1, H=2, S=131, D=40)]
BENCH_SHAPE = dict(B=2, H=16, S=8192, D=128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "FlexAttention (torch.compile(flex_attention), create_block_mask)"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    # dense causal count (the document mask removes more; the kernel's useful work is below this)
    flops = 4 * B * H * D * S * (S + 1) // 2
    byts = 2 * 4 * B * H * S * D + 4 * B * S
    return flops, byts
