"""Greedy decoding: for every row b of logits [B, V] (f32), the index of the largest value (the first
one on ties) as idx [B] (i64), and that value as val [B] (f32)."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def argmax_rows(logits: T.In[T.f32, ("B", "V")], idx: T.Out[T.i64, ("B",)], val: T.Out[T.f32, ("B",)]):
    nb, nv = logits.shape
    vocab = T.domain(0, nv)
    for b in T.parallel(T.domain(0, nb)):
        best, at = T.argmax(logits[b, vocab], tie="lowest")
        idx[b] = T.cast(at, T.i64)
        val[b] = best


KERNEL = argmax_rows


def inputs(shape, rng):
    B, V = shape["B"], shape["V"]
    logits = (3.0 * rng.standard_normal((B, V))).astype(np.float32)
    if V > 5:                       # a tie for the maximum in every other row: the first one wins
        top = logits.max(axis=1)
        for b in range(0, B, 2):
            logits[b, V - 1] = logits[b, V // 2] = top[b] + 1.0
    return {"logits": logits}


def reference(logits):
    return {"idx": np.argmax(logits, axis=1).astype(np.int64), "val": logits.max(axis=1)}


def peer(logits):
    import torch
    v, i = torch.max(logits, dim=1)
    return {"idx": i, "val": v}


TEST_SHAPES = [dict(B=1, V=1), dict(B=3, V=127), dict(B=5, V=4099), dict(B=2, V=30011)]
BENCH_SHAPE = dict(B=64, V=128256)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.max(dim=1)"


def OPS(shape):
    B, V = shape["B"], shape["V"]
    return B * V, 4 * B * V + 12 * B
