"""Causal attention with ALiBi biases and a sliding window (MPT / Falcon-style ALiBi models served with
a local window): for q, k, v f16 [B, H, S, D], per-head slopes f32 [H], a runtime window w (i32) and
scale, query i sees key j when j <= i and i - j < w, with score scale * q_i . k_j - slope[h] * (i - j);
o = softmax over the visible keys of the scores, times v; o f16 [B, H, S, D]. B4 H16 S4096 D128,
w = 1024. Peer: FlexAttention (score_mod for the bias, a sliding-window block mask)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def alibi_sliding_window_attention(q: T.In[T.f16, ("B", "H", "S", "D")], k: T.In[T.f16, ("B", "H", "S", "D")],
                                   v: T.In[T.f16, ("B", "H", "S", "D")], slopes: T.In[T.f32, ("H",)],
                                   o: T.Out[T.f16, ("B", "H", "S", "D")], window: T.i32, scale: T.f32):
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    kpos = T.indices(keys)
    w = T.cast(window, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale - slopes[h] * T.cast(i - kpos, T.f32)
        visible = (kpos <= i) & (i - kpos < w)
        s = T.where(visible, s, -math.inf)
        e = T.exp(s - T.max(s))
        o[b, h, i, dims] = T.cast(T.vecmat(T.cast(e, T.f16), v[b, h, keys, dims]) / T.sum(e), T.f16)


KERNEL = alibi_sliding_window_attention


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    s = (B, H, S, D)
    slopes = 2.0 ** (-8.0 * np.arange(1, H + 1) / H)
    return dict(q=rng.standard_normal(s).astype(np.float32), k=rng.standard_normal(s).astype(np.float32),
                v=rng.standard_normal(s).astype(np.float32), slopes=slopes.astype(np.float32),
                window=max(1, S // 3) if S < 4096 else 1024, scale=1.0 / math.sqrt(D))


def reference(q, k, v, slopes, window, scale):
    S = q.shape[2]
    i, j = np.arange(S)[:, None], np.arange(S)[None, :]
    s = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), k.astype(np.float64)) * scale
    s = s - slopes[None, :, None, None] * (i - j)
    s = np.where((j <= i) & (i - j < window), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return dict(o=np.einsum("bhij,bhjd->bhid", p, v.astype(np.float64)))


def peer(q, k, v, slopes, window, scale):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    B, H, S, D = q.shape

    def bias(score, b, h, qi, kj):
        return score - slopes[h] * (qi - kj)

    def local(b, h, qi, kj):
        return (kj <= qi) & (qi - kj < window)

    mask = create_block_mask(local, None, None, S, S, device=q.device)
    return dict(o=flex_attention(q, k, v, score_mod=bias, block_mask=mask, scale=scale))


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    w = min(S, 1024)
    return 4 * B * H * S * w * D, 2 * 4 * B * H * S * D


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=1, H=2, S=37, D=16), dict(B=2, H=3, S=67, D=32)]
BENCH_SHAPE = dict(B=4, H=16, S=4096, D=128)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "FlexAttention"
