"""Streaming attention with sink tokens (StreamingLLM): causal, each query i sees the first SINK=4 keys
plus the last W=1024 keys up to itself (keys j <= i with j < SINK or j > i - W); O = softmax(scale *
q.k over the visible keys) . V. q, k, v, O [B, H, S, D] bf16. B4 H32 S4096 D128.
Peer: FlexAttention with a block mask.
Second spelling: the window and the sink count are runtime i32 scalars (a model's config values), so
the test shapes exercise the window with small windows; the bench passes window=1024, sinks=4."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def streaming_sink_attention_b(q: T.In[T.bf16, ("B", "H", "S", "D")],
                               k: T.In[T.bf16, ("B", "H", "S", "D")],
                               v: T.In[T.bf16, ("B", "H", "S", "D")],
                               o: T.Out[T.bf16, ("B", "H", "S", "D")],
                               scale: T.f32, window: T.i32, sinks: T.i32):
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    W, SINK = T.cast(window, T.index), T.cast(sinks, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kpos = T.indices(keys)
        visible = (kpos <= i) & ((kpos < SINK) | (kpos + W > i))
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale        # f32 over keys
        s = T.where(visible, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims])              # f32 over dims
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.bf16)


KERNEL = streaming_sink_attention_b
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    window = 1024 if S >= 4096 else max(1, S // 5)       # small windows at the test shapes
    return dict(q=rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=rng.standard_normal((B, H, S, D), dtype=np.float32),
                v=rng.standard_normal((B, H, S, D), dtype=np.float32),
                scale=1.0 / math.sqrt(D), window=window, sinks=4)


def _bf16(a):
    """Round to bfloat16 (nearest even), returned as float64."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def _visible(S, window, sinks):
    i, j = np.arange(S)[:, None], np.arange(S)[None, :]
    return (j <= i) & ((j < sinks) | (j > i - window))


def reference(q, k, v, scale, window, sinks):
    q, k, v = _bf16(q), _bf16(k), _bf16(v)
    S = q.shape[2]
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    s = np.where(_visible(S, window, sinks), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, scale, window, sinks):
    import torch
    B, H, S, D = q.shape
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError:
        flex_attention = None
    if flex_attention is not None and q.is_cuda:
        def sink_window(b, h, qi, ki):
            return (ki <= qi) & ((ki < sinks) | (ki > qi - window))

        mask = create_block_mask(sink_window, None, None, S, S, device=q.device)
        return dict(o=flex_attention(q, k, v, block_mask=mask, scale=scale))
    vis = torch.from_numpy(_visible(S, window, sinks)).to(q.device)
    return dict(o=torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=vis, scale=scale))


# window = S // 5 at the test shapes: S=37 (window 7), 67 (13), 131 (26) all pass the window + sinks
TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=1, H=2, S=37, D=32), dict(B=2, H=1, S=67, D=24),
               dict(B=1, H=1, S=131, D=8), dict(B=1, H=1, S=5, D=128)]
BENCH_SHAPE = dict(B=4, H=32, S=4096, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "flex_attention(block_mask=sinks + sliding window); else SDPA(attn_mask=bool mask)"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    vis = S * (1024 + 4)
    return 2 * 2 * B * H * vis * D, 4 * B * H * S * D * 2
