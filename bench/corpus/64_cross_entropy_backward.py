"""Gradient of mean cross-entropy w.r.t. the logits: dlogits[m, :] = (softmax(logits[m, :])
- onehot(labels[m])) / M, logits [M, V] bf16, labels [M] int64, out bf16; M=4096, V=50257 (not a
multiple of anything). Peer: torch.compile of the closed form."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def cross_entropy_backward(logits: T.In[T.bf16, ("M", "V")],
                           labels: T.In[T.i64, ("M",), T.Range(0, "V")],
                           dlogits: T.Out[T.bf16, ("M", "V")]):
    M, V = logits.shape
    cols = T.domain(0, V)
    pos = T.indices(cols)
    inv_m = 1.0 / T.cast(M, T.f32)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(logits[m, cols], T.f32)
        e = T.exp(row - T.max(row))
        p = e / T.sum(e)
        g = T.where(pos == T.cast(labels[m], T.index), p - 1.0, p)
        dlogits[m, cols] = T.cast(g * inv_m, T.bf16)


KERNEL = cross_entropy_backward
CONSTEXPRS = {}


def inputs(shape, rng):
    M, V = shape["M"], shape["V"]
    labels = rng.integers(0, V, size=M).astype(np.int64)
    if M > 1:
        labels[0] = V - 1
    return {"logits": (rng.standard_normal((M, V)) * 3.0).astype(np.float32), "labels": labels}


def reference(logits, labels):
    x = logits.astype(np.float64)
    M, V = x.shape
    e = np.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    onehot = (np.arange(V)[None, :] == labels[:, None]).astype(np.float64)
    return {"dlogits": (p - onehot) / M}


def peer(logits, labels):
    import torch
    import torch.nn.functional as F
    p = torch.softmax(logits.float(), dim=-1)
    g = (p - F.one_hot(labels, logits.shape[1]).float()) / logits.shape[0]
    return {"dlogits": g.to(logits.dtype)}


TEST_SHAPES = [dict(M=1, V=1), dict(M=3, V=127), dict(M=17, V=1031), dict(M=5, V=4099)]
BENCH_SHAPE = dict(M=4096, V=50257)
TOLERANCE = dict(rtol=2e-2, atol=1e-7)
PEER = "torch.compile"


def OPS(shape):
    n = shape["M"] * shape["V"]
    return 5 * n, 2 * n * 2 + 8 * shape["M"]
