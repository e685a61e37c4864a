"""Multimodal rotary embedding (M-RoPE, Qwen2-VL), applied in place to q [S, HQ, 128] and k [S, HK, 128]
(f32): each token has three position ids (temporal, height, width: positions [3, S], int64); the 64
rotary frequencies inv_freq [64] are split in sections of 16, 24 and 24, frequency i taking its angle
from the section's id, angle[t, i] = positions[sec(i), t] * inv_freq[i]; then rotate-half: with c, s the
cosine and sine of the angles, x[:64] <- x[:64] c - x[64:] s and x[64:] <- x[64:] c + x[:64] s for every
head of q and k. S8192 HQ28 HK4. Peer: torch.compile (transformers' apply_multimodal_rotary_pos_emb)."""
import numpy as np
import tessel
import tessel.language as T

SECTIONS = (16, 24, 24)


@tessel.kernel
def mrope_qwen2vl(q: T.InOut[T.f32, ("S", "HQ", 128)], k: T.InOut[T.f32, ("S", "HK", 128)],
                  positions: T.In[T.i64, (3, "S")], inv_freq: T.In[T.f32, (64,)]):
    S, HQ, D = q.shape
    HK = k.shape[1]
    dims, half = T.domain(0, D), T.domain(0, 64)
    lo, hi = dims[0:64], dims[64:128]
    qheads, kheads = T.domain(0, HQ), T.domain(0, HK)
    for t in T.parallel(T.domain(0, S)):
        i = T.indices(half)
        section = T.where(i < SECTIONS[0], 0, T.where(i < SECTIONS[0] + SECTIONS[1], 1, 2, dtype=T.index))
        angle = T.cast(positions[section, t], T.f32) * inv_freq[half]
        c, s = T.cos(angle), T.sin(angle)
        q1, q2 = q[t, qheads, lo], q[t, qheads, hi]
        q[t, qheads, lo] = q1 * c - q2 * s
        q[t, qheads, hi] = q2 * c + q1 * s
        k1, k2 = k[t, kheads, lo], k[t, kheads, hi]
        k[t, kheads, lo] = k1 * c - k2 * s
        k[t, kheads, hi] = k2 * c + k1 * s


KERNEL = mrope_qwen2vl


def inputs(shape, rng):
    S, HQ, HK = shape["S"], shape["HQ"], shape["HK"]
    pos = np.stack([np.arange(S) // 4, rng.integers(0, 32, S), rng.integers(0, 32, S)]).astype(np.int64)
    inv_freq = (1.0 / 1000000.0 ** (np.arange(0, 128, 2) / 128)).astype(np.float32)
    return dict(q=rng.standard_normal((S, HQ, 128)).astype(np.float32),
                k=rng.standard_normal((S, HK, 128)).astype(np.float32), positions=pos, inv_freq=inv_freq)


def _section():
    return np.repeat(np.arange(3), SECTIONS)


def reference(q, k, positions, inv_freq):
    ang = positions[_section(), :].T.astype(np.float32) * inv_freq          # [S, 64], f32 as the kernel
    c, s = np.cos(ang.astype(np.float64))[:, None, :], np.sin(ang.astype(np.float64))[:, None, :]
    out = {}
    for name, x in (("q", q), ("k", k)):
        x1, x2 = x[..., :64].astype(np.float64), x[..., 64:].astype(np.float64)
        out[name] = np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)
    return out


def peer(q, k, positions, inv_freq):
    import torch
    sec = torch.repeat_interleave(torch.arange(3, device=q.device), torch.tensor(SECTIONS, device=q.device))
    ang = positions[sec, :].T.float() * inv_freq
    c, s = ang.cos()[:, None, :], ang.sin()[:, None, :]
    for x in (q, k):
        x1, x2 = x[..., :64].clone(), x[..., 64:].clone()
        x[..., :64] = x1 * c - x2 * s
        x[..., 64:] = x2 * c + x1 * s
    return dict(q=q, k=k)


def OPS(shape):
    n = shape["S"] * (shape["HQ"] + shape["HK"]) * 128
    return 3 * n, 8 * n


TEST_SHAPES = [dict(S=1, HQ=1, HK=1), dict(S=3, HQ=7, HK=1), dict(S=13, HQ=5, HK=2)]
BENCH_SHAPE = dict(S=8192, HQ=28, HK=4)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
# each rotate-half pair (q's, then k's) updates its view in place in one member
