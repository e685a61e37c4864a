"""Prefix-LM attention: keys before a runtime prefix length are visible to every query; after it,
attention is causal (key k visible to query q when k < prefix or k <= q). O = softmax(scale Q.K^T
over visible keys) . V. B4 H32 S4096 D128 bf16, prefix 1024 at the bench shape.
Peer: FlexAttention with a block mask."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def prefix_lm_attention(q: T.In[T.bf16, ("B", "H", "S", "D")],
                        k: T.In[T.bf16, ("B", "H", "S", "D")],
                        v: T.In[T.bf16, ("B", "H", "S", "D")],
                        o: T.Out[T.bf16, ("B", "H", "S", "D")],
                        scale: T.f32, prefix: T.i32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale     # f32 over keys
        visible = (kpos < T.cast(prefix, T.index)) | (kpos <= i)
        s = T.where(visible, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.bf16)


KERNEL = prefix_lm_attention


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return dict(q=rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=rng.standard_normal((B, H, S, D), dtype=np.float32),
                v=rng.standard_normal((B, H, S, D), dtype=np.float32),
                scale=1.0 / math.sqrt(D), prefix=max(1, S // 4))          # 1024 at the bench shape


def reference(q, k, v, scale, prefix):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    S = q.shape[2]
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    s = np.where((ki < prefix) | (ki <= qi), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, scale, prefix):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    S = q.shape[2]

    def prefix_lm(b, h, qi, ki):
        return (ki < prefix) | (ki <= qi)

    mask = create_block_mask(prefix_lm, None, None, S, S, device=q.device)
    return dict(o=flex_attention(q, k, v, block_mask=mask, scale=scale))


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=1, H=2, S=37, D=32), dict(B=2, H=1, S=67, D=24)]
BENCH_SHAPE = dict(B=4, H=32, S=4096, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "flex_attention(block_mask=prefix_lm)"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    P = max(1, S // 4)
    visible = S * (S + 1) // 2 + (P - 1) * P // 2         # causal pairs plus prefix keys above the diagonal
    return 4 * B * H * visible * D, 4 * B * H * S * D * 2
