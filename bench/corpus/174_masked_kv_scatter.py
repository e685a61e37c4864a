"""Masked scatter of new tokens into a KV cache at given slot indices, skipping slots < 0: cache bf16 [S, H, D], new bf16 [T, H, D], slot int64 [T] (unique non-negative or -1). S 1048576 T 8192 H8 D128. Peer: index_copy_ on the valid rows."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def masked_kv_scatter(cache: T.InOut[T.bf16, ("S", "H", "D")], new: T.In[T.bf16, ("T", "H", "D")],
                      slot: T.In[T.i64, ("T",)]):
    S, H, D = cache.shape
    heads, dims = T.domain(0, H), T.domain(0, D)
    for t in T.parallel(T.domain(0, new.shape[0])):
        s = slot[t]
        if s >= 0:
            cache[s, heads, dims] = new[t, heads, dims]


KERNEL = masked_kv_scatter


def inputs(shape, rng):
    S, NT, H, D = shape["S"], shape["T"], shape["H"], shape["D"]
    slot = rng.permutation(S)[:NT].astype(np.int64) if NT <= S else np.arange(NT) % S
    slot = np.where(rng.random(NT) < 0.25, -1, slot).astype(np.int64)
    return dict(cache=rng.standard_normal((S, H, D)).astype(np.float32),
                new=rng.standard_normal((NT, H, D)).astype(np.float32), slot=slot)


def reference(cache, new, slot):
    out = cache.copy()
    ok = slot >= 0
    out[slot[ok]] = new[ok]
    return dict(cache=out)


def peer(cache, new, slot):
    ok = slot >= 0
    cache.index_copy_(0, slot[ok], new[ok])
    return dict(cache=cache)


TEST_SHAPES = [dict(S=1, T=1, H=1, D=1), dict(S=13, T=5, H=3, D=7), dict(S=131, T=37, H=2, D=64)]
BENCH_SHAPE = dict(S=1048576, T=8192, H=8, D=128)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "index_copy_ on the valid rows"
