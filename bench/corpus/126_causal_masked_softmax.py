"""Causal masked softmax of a materialized score matrix: P[b, i, j] = softmax over j <= i of scale * S[b, i, j] (zeros above the diagonal), S f16 [BH, L, L], BH64 L2048, scale a runtime f32. Peer: torch.compile."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def causal_masked_softmax(s: T.In[T.f16, ("BH", "L", "L")], p: T.Out[T.f16, ("BH", "L", "L")], scale: T.f32):
    BH, L, _ = s.shape
    keys = T.domain(0, L)
    kpos = T.indices(keys)
    for b, i in T.parallel(T.domain(0, BH), T.domain(0, L)):
        row = T.cast(s[b, i, keys], T.f32) * scale
        row = T.where(kpos <= i, row, -math.inf)
        e = T.exp(row - T.max(row))
        p[b, i, keys] = T.cast(e / T.sum(e), T.f16)


KERNEL = causal_masked_softmax


def inputs(shape, rng):
    return {"s": (rng.standard_normal((shape["BH"], shape["L"], shape["L"])) * 4.0).astype(np.float16),
            "scale": 0.125}


def reference(s, scale):
    L = s.shape[-1]
    x = s.astype(np.float64) * np.float32(scale)
    mask = np.arange(L)[None, :] <= np.arange(L)[:, None]
    x = np.where(mask, x, -np.inf)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return {"p": (e / e.sum(axis=-1, keepdims=True)).astype(np.float16)}


def peer(s, scale):
    import torch
    L = s.shape[-1]
    mask = torch.ones(L, L, dtype=torch.bool, device=s.device).tril()
    x = (s.float() * scale).masked_fill(~mask, float("-inf"))
    return {"p": torch.softmax(x, dim=-1).to(torch.float16)}


TEST_SHAPES = [dict(BH=1, L=1), dict(BH=3, L=7), dict(BH=2, L=131), dict(BH=1, L=257)]
BENCH_SHAPE = dict(BH=64, L=2048)
TOLERANCE = dict(rtol=2e-3, atol=1e-4)
PEER = "torch.compile"
