"""cross_entropy_fwd_bwd: one kernel computing, for bf16 logits [M, V] and int64 labels [M],
    loss[m]       = logsumexp(logits[m]) - logits[m, label[m]]            (f32 [M])
    dlogits[m, v] = (softmax(logits[m])[v] - (v == label[m])) * gscale    (bf16 [M, V])
with gscale a float scalar (the upstream gradient, e.g. 1/M for a mean loss).
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def cross_entropy_fwd_bwd(logits: T.In[T.bf16, ("M", "V")], labels: T.In[T.i64, ("M",), T.Range(0, "V")],
                          loss: T.Out[T.f32, ("M",)], dlogits: T.Out[T.bf16, ("M", "V")], gscale: T.f32):
    M, V = logits.shape
    vocab = T.domain(0, V)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(logits[m, vocab], T.f32)
        mx = T.max(row)
        e = T.exp(row - mx)
        s = T.sum(e)
        lab = labels[m]
        loss[m] = mx + T.log(s) - T.cast(logits[m, lab], T.f32)
        onehot = T.where(T.indices(vocab) == T.cast(lab, T.index), 1.0, 0.0, dtype=T.f32)
        dlogits[m, vocab] = T.cast((e / s - onehot) * gscale, T.bf16)


KERNEL = cross_entropy_fwd_bwd


def inputs(shape, rng):
    M, V = shape["M"], shape["V"]
    return dict(logits=rng.standard_normal((M, V)).astype(np.float32) * 4.0,
                labels=rng.integers(0, V, size=M).astype(np.int64),
                gscale=1.0 / max(M, 1) * 3.0)


def reference(logits, labels, gscale):
    x = logits.astype(np.float64)
    M, V = x.shape
    mx = x.max(axis=1, keepdims=True)
    e = np.exp(x - mx)
    s = e.sum(axis=1, keepdims=True)
    loss = (mx + np.log(s))[:, 0] - x[np.arange(M), labels]
    onehot = np.zeros_like(x)
    onehot[np.arange(M), labels] = 1.0
    return dict(loss=loss, dlogits=(e / s - onehot) * gscale)


def peer(logits, labels, gscale):
    import torch
    x = logits.float()
    lse = torch.logsumexp(x, dim=1)
    loss = lse - x.gather(1, labels[:, None])[:, 0]
    p = torch.softmax(x, dim=1)
    onehot = torch.nn.functional.one_hot(labels, x.shape[1]).to(p.dtype)
    return dict(loss=loss, dlogits=((p - onehot) * gscale).to(torch.bfloat16))


TEST_SHAPES = [dict(M=1, V=1), dict(M=3, V=127), dict(M=13, V=1031)]
BENCH_SHAPE = dict(M=8192, V=32000)
# dlogits is bf16 (and the Triton interpreter truncates f32 -> bf16)
TOLERANCE = dict(rtol=1e-2, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    n = shape["M"] * shape["V"]
    return 8 * n, 2 * n + 2 * n + 12 * shape["M"]
