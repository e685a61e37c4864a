"""Top-p (nucleus) sampling's mask precursor without a sort: per row of logits, the softmax
probabilities, then their running sum along the row in the row's original (vocabulary) order,
out[m, j] = sum_{k <= j} softmax(logits[m])[k]. logits f32 [M, V], out f32 [M, V]. M4096 V32000.
Peer: torch.compile(torch.cumsum(torch.softmax(logits, -1), -1))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def softmax_cumsum(logits: T.In[T.f32, ("M", "V")], out: T.Out[T.f32, ("M", "V")]):
    M, V = logits.shape
    vocab = T.domain(0, V)
    for m in T.parallel(T.domain(0, M)):
        row = logits[m, vocab]
        e = T.exp(row - T.max(row))
        p = e / T.sum(e)
        out[m, vocab] = T.cumsum(p)


KERNEL = softmax_cumsum


def inputs(shape, rng):
    M, V = shape["M"], shape["V"]
    return dict(logits=(3.0 * rng.standard_normal((M, V))).astype(np.float32))


def reference(logits):
    x = logits.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True)) if x.size else x
    p = e / e.sum(axis=1, keepdims=True) if x.size else x
    return dict(out=np.cumsum(p, axis=1))


def peer(logits):
    import torch
    return dict(out=torch.cumsum(torch.softmax(logits, dim=-1), dim=-1))


def OPS(shape):
    M, V = shape["M"], shape["V"]
    return 6 * M * V, 8 * M * V


TEST_SHAPES = [dict(M=0, V=7), dict(M=1, V=1), dict(M=3, V=127), dict(M=17, V=1031), dict(M=2, V=4099)]
BENCH_SHAPE = dict(M=4096, V=32000)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
BENCH_TOLERANCE = dict(rtol=1e-3, atol=1e-4)
PEER = "torch.compile"
