"""Block-sparse attention (non-causal): a block mask [B, H, ceil(S/64), ceil(T/64)] bool says which 64x64
blocks of the score matrix are kept; masked-out blocks contribute nothing and a query row with no kept
block gives zeros. q [B, H, S, D], k/v [B, H, T, D] bf16, scale 1/sqrt(D), o [B, H, S, D] bf16.
B=2 H=16 S=T=4096 D=128 with ~25% of the blocks kept.
Peer: SDPA with the block mask expanded to a boolean [S, T] mask (rows with no kept block zeroed)."""
import math

import numpy as np
import tessel
import tessel.language as T

BLK = 64


@tessel.kernel
def block_sparse_attention(q: T.In[T.bf16, ("B", "H", "S", "D")],
                           k: T.In[T.bf16, ("B", "H", "T", "D")],
                           v: T.In[T.bf16, ("B", "H", "T", "D")],
                           block_mask: T.In[T.bool_, ("B", "H", "SB", "TB")],   # SB, TB = ceil(S/64), ceil(T/64)
                           o: T.Out[T.bf16, ("B", "H", "S", "D")],
                           scale: T.f32):
    B, H, S, D = q.shape
    keys, dims = k.domain(2), T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kept = block_mask[b, h, i // BLK, T.indices(keys) // BLK]                  # over keys
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(kept, s, -math.inf)
        p = T.where(kept, T.exp(s - T.max(s)), 0.0)
        den = T.sum(p)
        acc = T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(T.where(den > 0.0, acc / den, 0.0), T.bf16)


KERNEL = block_sparse_attention
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, S, Tk, D = (shape[n] for n in ("B", "H", "S", "T", "D"))
    assert shape["SB"] == -(-S // BLK) and shape["TB"] == -(-Tk // BLK)
    mask = rng.random((B, H, shape["SB"], shape["TB"])) < 0.25
    mask[0, 0, 0, :] = False                               # a query block with no kept key block
    mask[-1, -1, -1, -1] = True
    return dict(q=rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=rng.standard_normal((B, H, Tk, D), dtype=np.float32),
                v=rng.standard_normal((B, H, Tk, D), dtype=np.float32),
                block_mask=mask, scale=1.0 / math.sqrt(D))


def _dense(block_mask, S, Tk):
    return block_mask.repeat(BLK, axis=2).repeat(BLK, axis=3)[:, :, :S, :Tk]


def reference(q, k, v, block_mask, scale):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    S, Tk = q.shape[2], k.shape[2]
    m = _dense(block_mask, S, Tk)
    s = np.where(m, np.einsum("bhqd,bhkd->bhqk", q, k) * scale, -np.inf)
    mx = s.max(-1, keepdims=True)
    p = np.where(m, np.exp(s - np.where(np.isfinite(mx), mx, 0.0)), 0.0)
    den = p.sum(-1, keepdims=True)
    o = np.einsum("bhqk,bhkd->bhqd", p, v) / np.where(den > 0, den, 1.0)
    return dict(o=o)


def peer(q, k, v, block_mask, scale):
    import torch.nn.functional as F
    S, Tk = q.shape[2], k.shape[2]
    m = block_mask.repeat_interleave(BLK, dim=2).repeat_interleave(BLK, dim=3)[:, :, :S, :Tk]
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=scale)
    return dict(o=o.masked_fill(~m.any(-1, keepdim=True), 0.0))


def _shape(B, H, S, Tk, D):
    return dict(B=B, H=H, S=S, T=Tk, D=D, SB=-(-S // BLK), TB=-(-Tk // BLK))


TEST_SHAPES = [_shape(1, 1, 1, 1, 16), _shape(1, 2, 67, 131, 32), _shape(2, 1, 130, 61, 24),
               _shape(1, 1, 193, 257, 64)]
BENCH_SHAPE = _shape(2, 16, 4096, 4096, 128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.nn.functional.scaled_dot_product_attention(attn_mask=expanded block mask)"


def OPS(shape):
    B, H, S, Tk, D = (shape[n] for n in ("B", "H", "S", "T", "D"))
    return int(0.25 * 4 * B * H * S * Tk * D), 2 * B * H * D * (2 * S + 2 * Tk) + B * H * shape["SB"] * shape["TB"]
