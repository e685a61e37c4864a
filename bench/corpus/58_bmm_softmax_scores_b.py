"""Batched attention scores with a softmax, not fused with V: P[b] = softmax(scale * Q[b] @ K[b]^T,
axis=-1), written out. Q [B, S, D], K [B, T, D] f16, P [B, S, T] f16 (f32 scores and softmax).
B32 S512 T512 D64. Peer: torch.compile.
Second spelling: one T.parallel member per (batch, query row), the row's scores as a T.matvec over
the keys and the row softmax of that, the way the attention kernels in the examples are written."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def bmm_softmax_scores(q: T.In[T.f16, ("B", "S", "D")], k: T.In[T.f16, ("B", "T", "D")],
                       p: T.Out[T.f16, ("B", "S", "T")], scale: T.f32):
    B, S, D = q.shape
    Tk = k.shape[1]
    keys, dims = T.domain(0, Tk), T.domain(0, D)
    for b, i in T.parallel(T.domain(0, B), T.domain(0, S)):
        s = T.matvec(k[b, keys, dims], q[b, i, dims]) * scale            # f32 over keys
        e = T.exp(s - T.max(s))
        p[b, i, keys] = T.cast(e / T.sum(e), T.f16)


KERNEL = bmm_softmax_scores
CONSTEXPRS = {}


def inputs(shape, rng):
    B, S, Tk, D = shape["B"], shape["S"], shape["T"], shape["D"]
    return dict(q=rng.standard_normal((B, S, D)).astype(np.float16),
                k=rng.standard_normal((B, Tk, D)).astype(np.float16),
                scale=1.0 / math.sqrt(D))


def reference(q, k, scale):
    s = np.einsum("bsd,btd->bst", q.astype(np.float64), k.astype(np.float64)) * scale
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return dict(p=e / e.sum(axis=-1, keepdims=True))


def peer(q, k, scale):
    import torch
    s = torch.bmm(q, k.transpose(1, 2)).float() * scale
    return dict(p=torch.softmax(s, dim=-1).to(q.dtype))


TEST_SHAPES = [dict(B=1, S=1, T=1, D=1), dict(B=2, S=3, T=5, D=7), dict(B=3, S=17, T=37, D=16),
               dict(B=2, S=31, T=131, D=64)]
BENCH_SHAPE = dict(B=32, S=512, T=512, D=64)
TOLERANCE = dict(rtol=1e-2, atol=2e-3)
PEER = "torch.compile"


def OPS(shape):
    B, S, Tk, D = shape["B"], shape["S"], shape["T"], shape["D"]
    return 2 * B * S * Tk * D + 4 * B * S * Tk, 2 * (B * S * D + B * Tk * D + B * S * Tk)
