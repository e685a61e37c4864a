"""Length-masked softmax: scores [B, H, S, T] f16; key positions t >= lengths[b] (int32, one per batch) are
masked out; softmax over t; a row whose keys are all masked (lengths[b] = 0) gives zeros; out f16.
B=8 H=16 S=1024 T=1024. Peer: torch.compile (masked_fill(-inf), softmax, nan_to_num)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def length_masked_softmax(scores: T.In[T.f16, ("B", "H", "S", "T")],
                          lengths: T.In[T.i32, ("B",)],
                          out: T.Out[T.f16, ("B", "H", "S", "T")]):
    B, H, S, Tk = scores.shape
    keys = T.domain(0, Tk)
    for b, h, s in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        valid = T.indices(keys) < T.cast(lengths[b], T.index)
        x = T.where(valid, T.cast(scores[b, h, s, keys], T.f32), -math.inf)
        e = T.where(valid, T.exp(x - T.max(x)), 0.0)
        den = T.sum(e)
        p = T.where(den > 0.0, e / den, 0.0)
        out[b, h, s, keys] = T.cast(p, T.f16)


KERNEL = length_masked_softmax
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, S, Tk = (shape[n] for n in ("B", "H", "S", "T"))
    lengths = rng.integers(0, Tk + 1, size=B).astype(np.int32)
    lengths[0] = Tk
    if B > 1:
        lengths[1] = 0
    return dict(scores=(3.0 * rng.standard_normal((B, H, S, Tk))).astype(np.float16), lengths=lengths)


def reference(scores, lengths):
    Tk = scores.shape[3]
    valid = np.arange(Tk)[None, :] < lengths[:, None]                # [B, T]
    x = np.where(valid[:, None, None, :], scores.astype(np.float64), -np.inf)
    mx = x.max(-1, keepdims=True)
    e = np.where(valid[:, None, None, :], np.exp(x - np.where(np.isfinite(mx), mx, 0.0)), 0.0)
    den = e.sum(-1, keepdims=True)
    return dict(out=np.where(den > 0, e / np.where(den > 0, den, 1.0), 0.0))


def peer(scores, lengths):
    import torch
    Tk = scores.shape[3]
    valid = torch.arange(Tk, device=scores.device)[None, :] < lengths[:, None]
    x = scores.float().masked_fill(~valid[:, None, None, :], float("-inf"))
    return dict(out=torch.softmax(x, dim=-1).nan_to_num(0.0).to(torch.float16))


TEST_SHAPES = [dict(B=1, H=1, S=1, T=1), dict(B=2, H=1, S=3, T=127), dict(B=3, H=2, S=17, T=131),
               dict(B=4, H=1, S=5, T=1031)]
BENCH_SHAPE = dict(B=8, H=16, S=1024, T=1024)
TOLERANCE = dict(rtol=1e-2, atol=1e-3)
PEER = "torch.compile"


def OPS(shape):
    n = shape["B"] * shape["H"] * shape["S"] * shape["T"]
    return 5 * n, 2 * 2 * n
