"""Repetition penalty on logits (in place): for each batch row b and each token id t in prev[b, :] (int64 [B, L], may repeat), logits[b, t] = logits[b, t] / p if logits[b, t] > 0 else logits[b, t] * p; logits f32 [B, V], p runtime f32. B64 V128256 L1024. Peer: torch gather/where/scatter."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def repetition_penalty(logits: T.InOut[T.f32, ("B", "V")], prev: T.In[T.i64, ("B", "L"), T.Range(0, "V")],
                       p: T.f32):
    B, V = logits.shape
    L = prev.shape[1]
    hist = T.domain(0, L)
    for b in T.parallel(T.domain(0, B)):
        toks = prev[b, hist]
        v = logits[b, toks]
        logits[b, toks] = T.where(v > 0.0, v / p, v * p)


KERNEL = repetition_penalty


def inputs(shape, rng):
    B, V, L = shape["B"], shape["V"], shape["L"]
    return {"logits": rng.standard_normal((B, V)).astype(np.float32) * 4.0,
            "prev": rng.integers(0, V, size=(B, L)).astype(np.int64),
            "p": 1.3}


def reference(logits, prev, p):
    out = logits.copy()
    p = np.float32(p)
    for b in range(out.shape[0]):
        t = np.unique(prev[b])
        v = out[b, t]
        out[b, t] = np.where(v > 0, v / p, v * p)
    return {"logits": out}


def peer(logits, prev, p):
    import torch
    v = torch.gather(logits, 1, prev)
    v = torch.where(v > 0, v / p, v * p)
    logits.scatter_(1, prev, v)
    return {"logits": logits}


TEST_SHAPES = [dict(B=1, V=1, L=3), dict(B=3, V=127, L=31), dict(B=5, V=1031, L=257), dict(B=2, V=7, L=13)]
BENCH_SHAPE = dict(B=64, V=128256, L=1024)
TOLERANCE = dict(rtol=1e-6, atol=1e-6)
PEER = "torch gather/where/scatter_"
