"""Embedding bag (sum mode) with offsets: for each bag i, out[i] = sum of weight[idx[j]] for j in [offsets[i], offsets[i+1]); weight f32 [V, D], idx int64 [NNZ], offsets int64 [B+1]. V1000000 D128 B16384, about 20 per bag. Peer: F.embedding_bag(mode="sum")."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def embedding_bag_offsets(weight: T.In[T.f32, ("V", "D")], idx: T.In[T.i64, ("NNZ",), T.Range(0, "V")],
                          offsets: T.In[T.i64, ("B1",)], out: T.Out[T.f32, ("B", "D")]):
    # offsets has B + 1 entries (B1 = B + 1): bag i is idx[offsets[i]:offsets[i + 1]]
    V, D = weight.shape
    items, dims = T.domain(0, idx.shape[0]), T.domain(0, D)
    for i in T.parallel(T.domain(0, out.shape[0])):
        bag = items[offsets[i]:offsets[i + 1]]
        out[i, dims] = T.sum(weight[idx[bag], dims], axis=0)


KERNEL = embedding_bag_offsets


def inputs(shape, rng):
    V, D, NNZ, B = shape["V"], shape["D"], shape["NNZ"], shape["B"]
    assert shape["B1"] == B + 1
    cuts = np.sort(rng.integers(0, NNZ + 1, B - 1)) if B > 1 else np.zeros(0, np.int64)
    offsets = np.concatenate([[0], cuts, [NNZ]]).astype(np.int64)
    return dict(weight=rng.standard_normal((V, D)).astype(np.float32),
                idx=rng.integers(0, V, NNZ).astype(np.int64), offsets=offsets)


def reference(weight, idx, offsets):
    B = len(offsets) - 1
    out = np.zeros((B, weight.shape[1]))
    for i in range(B):
        out[i] = weight[idx[offsets[i]:offsets[i + 1]]].astype(np.float64).sum(axis=0)
    return {"out": out}


def peer(weight, idx, offsets):
    import torch.nn.functional as F
    return {"out": F.embedding_bag(idx, weight, offsets, mode="sum", include_last_offset=True)}


def OPS(shape):
    NNZ, D, B = shape["NNZ"], shape["D"], shape["B"]
    return NNZ * D, 4 * (NNZ * D + B * D) + 8 * (NNZ + B + 1)


TEST_SHAPES = [dict(V=1, D=1, NNZ=1, B=1, B1=2), dict(V=37, D=17, NNZ=61, B=5, B1=6),
               dict(V=101, D=129, NNZ=263, B=13, B1=14), dict(V=7, D=3, NNZ=5, B=11, B1=12)]
BENCH_SHAPE = dict(V=1000000, D=128, NNZ=16384 * 20, B=16384, B1=16385)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = 'F.embedding_bag(mode="sum")'
