"""attention: O[b, h, s, :] = softmax_t(scale * Q[b, h, s, :] . K[b, h, t, :]) @ V[b, h, :, :]

for Q[B, H, S, D], K/V[B, H, T, D] (f16) and O[B, H, S, D] (f16), a runtime scalar `scale` and the
constexpr CAUSAL (key t is visible to query s only when t <= s). A row with no visible key is 0.

Each query row is one region fold over the key axis: the summary of a slice of keys is the online
softmax state (any visible, max, denominator, f32 accumulator over D); `combine` rescales both sides
to the larger maximum, so the compiler may cut the key axis into any contiguous slices.
"""
import math

import numpy as np

import tessel
import tessel.language as T


@tessel.kernel(numerics="relaxed_normalization")
def attention(Q: T.In[T.f16, ("B", "H", "S", "D")], K: T.In[T.f16, ("B", "H", "T", "D")],
              V: T.In[T.f16, ("B", "H", "T", "D")], O: T.Out[T.f16, ("B", "H", "S", "D")],
              scale: T.f32, CAUSAL: T.Constexpr[bool] = True):
    nb, nh, ns, nd = Q.shape
    keys, dims = T.domain(0, K.shape[2]), T.domain(0, nd)
    zero_row = T.zeros(dims, T.f32)
    key_pos = T.indices(keys)

    @tessel.fn
    def summarize(k, v, kpos, q, s, sc):
        scores = T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32) * sc
        visible = (kpos <= s) if CAUSAL else T.full_like(kpos, True)
        some = T.any(visible)
        top = T.max(T.where(visible, scores, -math.inf))
        m = T.where(some, top, 0.0)
        p = T.where(visible, T.exp(scores - m), 0.0)
        return some, m, T.sum(p), T.vecmat(p, T.cast(v, T.f32))

    @tessel.fn
    def combine(ok1, m1, d1, a1, ok2, m2, d2, a2):
        m = T.where(ok2, T.where(ok1, T.maximum(m1, m2), m2), m1)
        w1 = T.where(ok1, T.exp(m1 - m), 0.0)
        w2 = T.where(ok2, T.exp(m2 - m), 0.0)
        return ok1 | ok2, m, d1 * w1 + d2 * w2, a1 * w1 + a2 * w2

    for b, h, s in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
        k, v = K[b, h, keys, dims], V[b, h, keys, dims]
        some, m, den, acc = T.region_fold(
            sources=(k, v, key_pos), axis=0, identity=(False, 0.0, 0.0, zero_row),
            summarize=summarize, combine=combine, operands=(Q[b, h, s, dims], s, scale))
        O[b, h, s, dims] = T.cast(T.where(some, acc / den, zero_row), T.f16)


def reference(Q, K, V, scale, CAUSAL=True):
    q, k, v = (t.astype(np.float64) for t in (Q, K, V))
    s = np.einsum("bhsd,bhtd->bhst", q, k) * np.float32(scale)
    S, T_ = s.shape[-2:]
    visible = np.ones((S, T_), bool)
    if CAUSAL:
        visible = np.arange(T_)[None, :] <= np.arange(S)[:, None]
    s = np.where(visible, s, -np.inf)
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    rows = visible.any(axis=1)
    if T_ and rows.any():
        mx = s[..., rows, :].max(axis=-1, keepdims=True)
        p = np.exp(s[..., rows, :] - mx)
        out[..., rows, :] = (p / p.sum(axis=-1, keepdims=True)) @ v
    return out
