"""YaRN-scaled partial rotary embedding, in place on Q [S, HQ, D] and K [S, HK, D] (bf16), the
rotation angles computed in the kernel from per-token positions pos [S] (i32): only the first ROT
dimensions of each head rotate (rotate-half over ROT = 64, the rest pass through, as in ChatGLM and
GPT-NeoX's partial rotary). For pair j < ROT/2, the extrapolated frequency is f_e = base^(-2j/ROT),
the interpolated one f_i = f_e / factor, and YaRN's ramp r_j = clip((j - ramp_lo) / (ramp_hi - ramp_lo),
0, 1) mixes them, f_j = f_i * r_j + f_e * (1 - r_j); with a = pos[t] * f_j, c = cos(a) * mscale and
s = sin(a) * mscale, x1 = x[..., j], x2 = x[..., j + ROT/2] become x1 * c - x2 * s and x2 * c + x1 * s
(f32 math). The scalars are log(base), factor, ramp_lo, ramp_hi (computed on the host from the original
context length and beta_fast / beta_slow) and mscale = 0.1 * ln(factor) + 1. S=16384 HQ=32 HK=8 D=128,
base 10000, factor 4. Peer: torch.compile of the HF YaRN rotary (cos/sin built per call)."""
import math

import numpy as np
import tessel
import tessel.language as T

ROT = 64


@tessel.kernel
def yarn_partial_rope(q: T.InOut[T.bf16, ("S", "HQ", "D")], k: T.InOut[T.bf16, ("S", "HK", "D")],
                      pos: T.In[T.i32, ("S",)], log_base: T.f32, factor: T.f32, ramp_lo: T.f32,
                      ramp_hi: T.f32, mscale: T.f32, ROT: T.Constexpr[int] = ROT):
    S, HQ, D = q.shape
    HK = k.shape[1]
    H2 = ROT // 2
    dims, pairs = T.domain(0, D), T.domain(0, H2)
    lo, hi = dims[0:H2], dims[H2:ROT]

    # the per-pair frequency does not depend on the token: computed once, used by every (t, h)
    j = T.cast(T.indices(pairs), T.f32)
    f_e = T.exp(j * (-2.0 / ROT) * log_base)
    ramp = T.minimum(T.maximum((j - ramp_lo) / (ramp_hi - ramp_lo), 0.0), 1.0)
    freq = f_e / factor * ramp + f_e * (1.0 - ramp)

    for t, h in T.parallel(T.domain(0, S), T.domain(0, HQ)):
        a = T.cast(pos[t], T.f32) * freq
        c, s = T.cos(a) * mscale, T.sin(a) * mscale
        x1, x2 = T.cast(q[t, h, lo], T.f32), T.cast(q[t, h, hi], T.f32)
        q[t, h, lo] = T.cast(x1 * c - x2 * s, T.bf16)
        q[t, h, hi] = T.cast(x2 * c + x1 * s, T.bf16)
    for t, h in T.parallel(T.domain(0, S), T.domain(0, HK)):
        a = T.cast(pos[t], T.f32) * freq
        c, s = T.cos(a) * mscale, T.sin(a) * mscale
        x1, x2 = T.cast(k[t, h, lo], T.f32), T.cast(k[t, h, hi], T.f32)
        k[t, h, lo] = T.cast(x1 * c - x2 * s, T.bf16)
        k[t, h, hi] = T.cast(x2 * c + x1 * s, T.bf16)


KERNEL = yarn_partial_rope
CONSTEXPRS = {"ROT": ROT}


def _yarn_scalars(base=10000.0, factor=4.0, original=4096, beta_fast=32.0, beta_slow=1.0):
    def dim_of(rotations):
        return ROT * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))
    lo = max(math.floor(dim_of(beta_fast)), 0)
    hi = min(math.ceil(dim_of(beta_slow)), ROT - 1)
    if hi == lo:
        hi += 0.001
    return dict(log_base=math.log(base), factor=factor, ramp_lo=float(lo), ramp_hi=float(hi),
                mscale=0.1 * math.log(factor) + 1.0)


def inputs(shape, rng):
    S, HQ, HK, D = shape["S"], shape["HQ"], shape["HK"], shape["D"]
    assert D >= ROT
    pos = rng.integers(0, 16384, size=S)
    if S > 2:
        pos[1] = pos[0]                                  # a repeated position (packed sequences)
    return dict(q=rng.standard_normal((S, HQ, D)).astype(np.float32),
                k=rng.standard_normal((S, HK, D)).astype(np.float32),
                pos=pos.astype(np.int32), **_yarn_scalars())


def _freq(log_base, factor, ramp_lo, ramp_hi):
    j = np.arange(ROT // 2, dtype=np.float64)
    f_e = np.exp(-2.0 * j / ROT * log_base)
    ramp = np.clip((j - ramp_lo) / (ramp_hi - ramp_lo), 0.0, 1.0)
    return f_e / factor * ramp + f_e * (1.0 - ramp)


def _rope(x, c, s):
    x = x.astype(np.float64).copy()
    h2 = ROT // 2
    x1, x2 = x[..., :h2].copy(), x[..., h2:ROT].copy()
    x[..., :h2] = x1 * c - x2 * s
    x[..., h2:ROT] = x2 * c + x1 * s
    return x


def reference(q, k, pos, log_base, factor, ramp_lo, ramp_hi, mscale):
    a = pos.astype(np.float64)[:, None] * _freq(log_base, factor, ramp_lo, ramp_hi)[None, :]
    c, s = (np.cos(a) * mscale)[:, None, :], (np.sin(a) * mscale)[:, None, :]
    return dict(q=_rope(q, c, s), k=_rope(k, c, s))


def peer(q, k, pos, log_base, factor, ramp_lo, ramp_hi, mscale):
    import torch
    j = torch.arange(ROT // 2, device=q.device, dtype=torch.float32)
    f_e = torch.exp(j * (-2.0 / ROT) * log_base)
    ramp = ((j - ramp_lo) / (ramp_hi - ramp_lo)).clamp(0.0, 1.0)
    freq = f_e / factor * ramp + f_e * (1.0 - ramp)
    a = pos.float()[:, None] * freq[None, :]
    c, s = (a.cos() * mscale)[:, None, :], (a.sin() * mscale)[:, None, :]
    for x in (q, k):
        x1, x2 = x[..., :ROT // 2].float(), x[..., ROT // 2:ROT].float()
        rot = torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1)
        x[..., :ROT] = rot.to(x.dtype)
    return dict(q=q, k=k)


def OPS(shape):
    n = shape["S"] * (shape["HQ"] + shape["HK"])
    return 6 * n * ROT, 2 * 2 * n * shape["D"]


TEST_SHAPES = [dict(S=1, HQ=1, HK=1, D=64), dict(S=3, HQ=3, HK=1, D=67), dict(S=13, HQ=4, HK=2, D=128),
               dict(S=0, HQ=2, HK=1, D=64)]   # the last: no rows (check.py; CI runs the second)
BENCH_SHAPE = dict(S=16384, HQ=32, HK=8, D=128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
