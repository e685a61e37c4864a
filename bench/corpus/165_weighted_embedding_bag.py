"""Sparse-dense row gather-sum of embeddings with per-lookup weights (weighted embedding bag, fixed 32 lookups per bag): out[b] = sum_j w[b, j] * E[idx[b, j]], E bf16 [V, D], idx int32 [B, 32], w f32 [B, 32], out f32 [B, D]. V 1000000 D256 B32768. Peer: F.embedding_bag(mode="sum", per_sample_weights=...)."""
import numpy as np
import torch
import torch.nn.functional as Fn
import tessel
import tessel.language as T


@tessel.kernel
def weighted_embedding_bag(E: T.In[T.bf16, ("V", "D")], idx: T.In[T.i32, ("B", 32), T.Range(0, "V")],
                           w: T.In[T.f32, ("B", 32)], out: T.Out[T.f32, ("B", "D")]):
    V, D = E.shape
    nb = idx.shape[0]
    looks, dims = idx.domain(1), T.domain(0, D)
    for b in T.parallel(T.domain(0, nb)):
        rows = T.cast(E[idx[b, looks], dims], T.f32)          # [32, D]
        out[b, dims] = T.sum(rows * w[b, looks], axis=0)


KERNEL = weighted_embedding_bag


def inputs(shape, rng):
    V, D, B = shape["V"], shape["D"], shape["B"]
    return dict(E=rng.standard_normal((V, D)).astype(np.float32),
                idx=rng.integers(0, V, (B, 32)).astype(np.int32),
                w=rng.standard_normal((B, 32)).astype(np.float32))


def reference(E, idx, w):
    return dict(out=np.einsum("bj,bjd->bd", w.astype(np.float64), E.astype(np.float64)[idx]).astype(np.float32))


def peer(E, idx, w):
    return dict(out=Fn.embedding_bag(idx.long(), E.float(), mode="sum", per_sample_weights=w))


TEST_SHAPES = [dict(V=1, D=1, B=1), dict(V=13, D=7, B=3), dict(V=101, D=131, B=19)]
BENCH_SHAPE = dict(V=1000000, D=256, B=32768)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = 'F.embedding_bag(mode="sum", per_sample_weights=...)'
