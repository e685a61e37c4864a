"""Split a fused QKV projection and apply rotary embeddings. qkv [T, (HQ + 2*HK) * D] (bf16) holds, per
token t (position t), HQ query heads, then HK key heads, then HK value heads, D wide each. Write
q [HQ, T, D], k [HK, T, D], v [HK, T, D] (bf16, head-major) with rotate-half RoPE on q and k:
    x1, x2 = x[:D/2], x[D/2:];  out = [x1 * cos[t] - x2 * sin[t], x2 * cos[t] + x1 * sin[t]]
(cos, sin [T, D/2] f32; math in f32). The packed width C = (HQ + 2*HK) * D and D2 = D/2 are their own
symbols (extents cannot be related in a declaration).
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def qkv_split_rope(qkv: T.In[T.bf16, ("T", "C")], cos: T.In[T.f32, ("T", "D2")], sin: T.In[T.f32, ("T", "D2")],
                   q: T.Out[T.bf16, ("HQ", "T", "D")], k: T.Out[T.bf16, ("HK", "T", "D")],
                   v: T.Out[T.bf16, ("HK", "T", "D")]):
    nt, nc = qkv.shape
    nq, _, nd = q.shape
    nk = k.shape[0]
    d2 = T.extent("D2")
    cols, dims, half = T.domain(0, nc), T.domain(0, nd), T.domain(0, d2)
    lo, hi = dims[0:d2], dims[d2:2 * d2]
    tokens = T.domain(0, nt)

    for t, h in T.parallel(tokens, T.domain(0, nq)):
        base = h * nd
        c, s = cos[t, half], sin[t, half]
        x1 = T.cast(qkv[t, cols[base:base + d2]], T.f32)
        x2 = T.cast(qkv[t, cols[base + d2:base + 2 * d2]], T.f32)
        q[h, t, lo] = T.cast(x1 * c - x2 * s, T.bf16)
        q[h, t, hi] = T.cast(x2 * c + x1 * s, T.bf16)

    for t, g in T.parallel(tokens, T.domain(0, nk)):
        kbase = (nq + g) * nd
        vbase = (nq + nk + g) * nd
        c, s = cos[t, half], sin[t, half]
        x1 = T.cast(qkv[t, cols[kbase:kbase + d2]], T.f32)
        x2 = T.cast(qkv[t, cols[kbase + d2:kbase + 2 * d2]], T.f32)
        k[g, t, lo] = T.cast(x1 * c - x2 * s, T.bf16)
        k[g, t, hi] = T.cast(x2 * c + x1 * s, T.bf16)
        v[g, t, dims] = qkv[t, cols[vbase:vbase + nd]]


KERNEL = qkv_split_rope


def inputs(shape, rng):
    nt, hq, hk, d = shape["T"], shape["HQ"], shape["HK"], shape["D"]
    assert d == 2 * shape["D2"] and shape["C"] == (hq + 2 * hk) * d
    inv = 10000.0 ** (-np.arange(d // 2) / (d // 2))
    ang = np.arange(nt)[:, None] * inv[None, :]
    return {"qkv": rng.standard_normal((nt, (hq + 2 * hk) * d)).astype(np.float32),
            "cos": np.cos(ang).astype(np.float32), "sin": np.sin(ang).astype(np.float32)}


def reference(qkv, cos, sin):
    """The test shapes keep the bench's GQA ratio HQ = 4 * HK (reference() sees only the arrays, and
    qkv's width gives HQ + 2 * HK heads)."""
    nt, d2 = cos.shape
    d = 2 * d2
    heads = qkv.shape[1] // d
    hk = heads // 6
    hq = 4 * hk
    x = qkv.astype(np.float64).reshape(nt, heads, d).transpose(1, 0, 2)     # [heads, T, D]
    c, s = cos.astype(np.float64)[None], sin.astype(np.float64)[None]

    def rope(y):
        y1, y2 = y[..., :d2], y[..., d2:]
        return np.concatenate([y1 * c - y2 * s, y2 * c + y1 * s], axis=-1)

    return {"q": rope(x[:hq]), "k": rope(x[hq:hq + hk]), "v": x[hq + hk:]}


def peer(qkv, cos, sin):
    import torch
    nt, d2 = cos.shape
    d = 2 * d2
    heads = qkv.shape[1] // d
    hk = heads // 6
    hq = 4 * hk
    x = qkv.view(nt, heads, d)
    q, k, v = x.split([hq, hk, hk], dim=1)
    c, s = cos[:, None, :], sin[:, None, :]

    def rope(y):
        y1, y2 = y[..., :d2].float(), y[..., d2:].float()
        return torch.cat([y1 * c - y2 * s, y2 * c + y1 * s], dim=-1).to(qkv.dtype)

    return {"q": rope(q).transpose(0, 1).contiguous(), "k": rope(k).transpose(0, 1).contiguous(),
            "v": v.transpose(0, 1).contiguous()}


def _shape(nt, hk, d):
    return dict(T=nt, HQ=4 * hk, HK=hk, D=d, D2=d // 2, C=6 * hk * d)


TEST_SHAPES = [_shape(1, 1, 2), _shape(7, 1, 10), _shape(13, 2, 6), _shape(3, 1, 34)]
BENCH_SHAPE = _shape(8192, 8, 128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)   # bf16 outputs
PEER = "torch.compile"


def OPS(shape):
    nt, c = shape["T"], shape["C"]
    return 3 * nt * (shape["HQ"] + shape["HK"]) * shape["D"], 2 * 2 * nt * c + 8 * nt * shape["D2"]
