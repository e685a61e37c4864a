"""Sliding-window causal attention with a runtime window: query position q sees key position k when
k <= q and q - k < W, where W is a runtime argument (256 at the bench shape); O = softmax(scale Q.K^T
over visible keys) . V. B4 H32 S4096 D128 f16. Peer: FlexAttention with a sliding-window block mask."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sliding_window_attention(q: T.In[T.f16, ("B", "H", "S", "D")],
                             k: T.In[T.f16, ("B", "H", "S", "D")],
                             v: T.In[T.f16, ("B", "H", "S", "D")],
                             o: T.Out[T.f16, ("B", "H", "S", "D")],
                             scale: T.f32, window: T.i32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    kpos = T.indices(keys)
    W = T.cast(window, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale     # f32 over keys
        visible = (kpos <= i) & (i - kpos < W)
        s = T.where(visible, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.f16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.f16)


KERNEL = sliding_window_attention


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return dict(q=rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=rng.standard_normal((B, H, S, D), dtype=np.float32),
                v=rng.standard_normal((B, H, S, D), dtype=np.float32),
                scale=1.0 / math.sqrt(D), window=max(1, S // 16))    # 256 at the bench shape


def reference(q, k, v, scale, window):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    S = q.shape[2]
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    s = np.where((ki <= qi) & (qi - ki < window), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, scale, window):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    S = q.shape[2]

    def sliding_window(b, h, qi, ki):
        return (ki <= qi) & (qi - ki < window)

    mask = create_block_mask(sliding_window, None, None, S, S, device=q.device)
    return dict(o=flex_attention(q, k, v, block_mask=mask, scale=scale))


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=1, H=2, S=37, D=32), dict(B=2, H=1, S=67, D=24)]
BENCH_SHAPE = dict(B=4, H=32, S=4096, D=128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "flex_attention(block_mask=sliding_window)"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    W = max(1, S // 16)
    visible = sum(min(i + 1, W) for i in range(S))
    return 4 * B * H * visible * D, 4 * B * H * S * D * 2
