"""Causal attention that also writes the row logsumexp: O = softmax(scale Q.K^T with a causal
mask) . V and LSE[b,h,q] = log(sum over visible keys k of exp(scale q.k)), what a backward pass needs.
B4 H32 S4096 D128 bf16, LSE in f32. Peer: FlexAttention with return_lse=True."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def causal_attention_lse(q: T.In[T.bf16, ("B", "H", "S", "D")],
                         k: T.In[T.bf16, ("B", "H", "S", "D")],
                         v: T.In[T.bf16, ("B", "H", "S", "D")],
                         o: T.Out[T.bf16, ("B", "H", "S", "D")],
                         lse: T.Out[T.f32, ("B", "H", "S")],
                         scale: T.f32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale     # f32 over keys
        s = T.where(T.indices(keys) <= i, s, -math.inf)
        m = T.max(s)
        p = T.exp(s - m)
        l = T.sum(p)
        acc = T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / l, T.bf16)
        lse[b, h, i] = m + T.log(l)


KERNEL = causal_attention_lse


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return dict(q=rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=rng.standard_normal((B, H, S, D), dtype=np.float32),
                v=rng.standard_normal((B, H, S, D), dtype=np.float32),
                scale=1.0 / math.sqrt(D))


def reference(q, k, v, scale):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    S = q.shape[2]
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    s = np.where(np.tril(np.ones((S, S), bool)), s, -np.inf)
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    l = e.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", e / l, v), lse=(m + np.log(l))[..., 0])


def peer(q, k, v, scale):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    S = q.shape[2]

    def causal(b, h, qi, ki):
        return ki <= qi

    mask = create_block_mask(causal, None, None, S, S, device=q.device)
    o, lse = flex_attention(q, k, v, block_mask=mask, scale=scale, return_lse=True)
    return dict(o=o, lse=lse)


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=1, H=2, S=37, D=32), dict(B=2, H=1, S=67, D=24)]
BENCH_SHAPE = dict(B=4, H=32, S=4096, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "flex_attention(block_mask=causal, return_lse=True)"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return 2 * B * H * S * (S + 1) * D, 4 * B * H * S * D * 2 + B * H * S * 4
