"""Rotary embedding, rotate-half (GPT-NeoX) style, in place on Q [T, HQ, D] and K [T, HK, D] (f16),
with cos/sin tables [P, D/2] (f16) gathered by a per-token position id pos [T] (i32, 0 <= pos < P):
with c = cos[pos[t]], s = sin[pos[t]], x1 = x[..., :D/2], x2 = x[..., D/2:],
x[..., :D/2] = x1 * c - x2 * s and x[..., D/2:] = x2 * c + x1 * s (f32 math). T=16384 HQ=32 HK=8
D=128, P=32768. Peer: torch.compile.
Second spelling: one member per token over all heads, both halves computed before the stores."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rotary_pos_ids_inplace_b(q: T.InOut[T.f16, ("T", "HQ", "D")], k: T.InOut[T.f16, ("T", "HK", "D")],
                             cos: T.In[T.f16, ("P", "D2")], sin: T.In[T.f16, ("P", "D2")],
                             pos: T.In[T.i32, ("T",), T.Range(0, "P")]):
    NT, HQ, D = q.shape
    HK = k.shape[1]
    D2 = cos.shape[1]                          # D == 2 * D2 (asserted by the caller)
    qh, kh = T.domain(0, HQ), T.domain(0, HK)
    dims, half = T.domain(0, D), T.domain(0, D2)
    lo, hi = dims[0:D2], dims[D2:2 * D2]
    for t in T.parallel(T.domain(0, NT)):     # one token: all its query and key heads
        p = pos[t]
        c = T.cast(cos[p, half], T.f32)       # [D2], spread over the heads
        s = T.cast(sin[p, half], T.f32)
        q1, q2 = T.cast(q[t, qh, lo], T.f32), T.cast(q[t, qh, hi], T.f32)
        k1, k2 = T.cast(k[t, kh, lo], T.f32), T.cast(k[t, kh, hi], T.f32)
        qlo, qhi = T.cast(q1 * c - q2 * s, T.f16), T.cast(q2 * c + q1 * s, T.f16)
        klo, khi = T.cast(k1 * c - k2 * s, T.f16), T.cast(k2 * c + k1 * s, T.f16)
        q[t, qh, lo] = qlo
        q[t, qh, hi] = qhi
        k[t, kh, lo] = klo
        k[t, kh, hi] = khi


KERNEL = rotary_pos_ids_inplace_b
CONSTEXPRS = {}


def inputs(shape, rng):
    NT, HQ, HK, D, D2, P = shape["T"], shape["HQ"], shape["HK"], shape["D"], shape["D2"], shape["P"]
    assert D == 2 * D2
    inv = 1.0 / (10000.0 ** (np.arange(D2, dtype=np.float64) / D2))
    ang = np.arange(P, dtype=np.float64)[:, None] * inv[None, :]
    pos = rng.integers(0, P, size=NT)
    pos[0] = P - 1                             # both ends of the table are used
    if NT > 1:
        pos[-1] = 0
    if NT > 3:
        pos[2] = pos[1]                        # a repeated position
    return dict(q=rng.standard_normal((NT, HQ, D)).astype(np.float16),
                k=rng.standard_normal((NT, HK, D)).astype(np.float16),
                cos=np.cos(ang).astype(np.float16), sin=np.sin(ang).astype(np.float16),
                pos=pos.astype(np.int32))


def _rope(x, c, s):
    D2 = c.shape[-1]
    x1, x2 = x[..., :D2], x[..., D2:]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)


def reference(q, k, cos, sin, pos):
    c = cos.astype(np.float64)[pos][:, None, :]
    s = sin.astype(np.float64)[pos][:, None, :]
    return dict(q=_rope(q.astype(np.float64), c, s), k=_rope(k.astype(np.float64), c, s))


def peer(q, k, cos, sin, pos):
    import torch

    def rotate_half(x):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)

    c = torch.cat((cos, cos), dim=-1)[pos.long()].unsqueeze(1)     # [T, 1, D]
    s = torch.cat((sin, sin), dim=-1)[pos.long()].unsqueeze(1)
    q.copy_((q.float() * c + rotate_half(q.float()) * s).to(q.dtype))
    k.copy_((k.float() * c + rotate_half(k.float()) * s).to(k.dtype))
    return dict(q=q, k=k)


def _shape(NT, HQ, HK, D, P):
    return dict(T=NT, HQ=HQ, HK=HK, D=D, D2=D // 2, P=P)


TEST_SHAPES = [_shape(1, 1, 1, 2, 1), _shape(7, 3, 1, 10, 13), _shape(13, 4, 2, 34, 37),
               _shape(5, 32, 8, 128, 131), _shape(31, 2, 1, 6, 3)]
BENCH_SHAPE = _shape(16384, 32, 8, 128, 32768)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile (rotate_half, index by position ids, copy_ in place)"


def OPS(shape):
    NT, HQ, HK, D = shape["T"], shape["HQ"], shape["HK"], shape["D"]
    return 3 * NT * (HQ + HK) * D, 2 * 2 * NT * (HQ + HK) * D + 2 * NT * D + 4 * NT
