"""Embedding bag (sum) with offsets: out[b, :] = sum of table[indices[j], :] for j in
[offsets[b], offsets[b+1]) (the last bag ends at len(indices); bags may be empty), as
F.embedding_bag(indices, table, offsets, mode="sum")."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def embedding_bag_sum(table: T.In[T.f32, ("V", "D")],
                      indices: T.In[T.i32, ("NI",), T.Range(0, "V")],
                      offsets: T.In[T.i32, ("NB",)],
                      out: T.Out[T.f32, ("NB", "D")]):
    V, D = table.shape
    NI = T.extent("NI")
    NB = T.extent("NB")
    dims = T.domain(0, D)
    items = T.domain(0, NI)
    for b in T.parallel(T.domain(0, NB)):
        lo = T.cast(offsets[b], T.index)
        hi = T.cast(offsets[b + 1], T.index) if b + 1 < NB else NI
        acc = T.zeros(dims)
        for j in items[lo:hi]:
            acc = acc + table[indices[j], dims]
        out[b, dims] = acc


KERNEL = embedding_bag_sum
CONSTEXPRS = {}


def inputs(shape, rng):
    V, D, NI, NB = shape["V"], shape["D"], shape["NI"], shape["NB"]
    offsets = np.sort(rng.integers(0, NI + 1, size=NB))
    offsets[0] = 0
    return {
        "table": rng.standard_normal((V, D)).astype(np.float32),
        "indices": rng.integers(0, V, size=NI).astype(np.int32),
        "offsets": offsets.astype(np.int32),
    }


def reference(table, indices, offsets):
    NB, NI = offsets.shape[0], indices.shape[0]
    ends = np.append(offsets[1:], NI)
    t64 = table.astype(np.float64)
    out = np.zeros((NB, table.shape[1]))
    for b in range(NB):
        out[b] = t64[indices[offsets[b]:ends[b]]].sum(axis=0)
    return {"out": out.astype(np.float32)}


def peer(table, indices, offsets):
    import torch.nn.functional as F
    return {"out": F.embedding_bag(indices, table, offsets, mode="sum")}


TEST_SHAPES = [dict(V=1, D=1, NI=1, NB=1),
               dict(V=97, D=13, NI=211, NB=31),
               dict(V=1031, D=33, NI=509, NB=7),
               dict(V=257, D=128, NI=1000, NB=129)]
BENCH_SHAPE = dict(V=1_000_000, D=128, NI=65536 * 32, NB=65536)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "F.embedding_bag"


def OPS(shape):
    D, NI, NB = shape["D"], shape["NI"], shape["NB"]
    return NI * D, NI * D * 4 + NI * 4 + NB * 4 + NB * D * 4
