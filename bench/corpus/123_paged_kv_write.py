"""Paged KV-cache write (vLLM reshape_and_cache): key/value [T, H, D] bf16 written into caches [NUM_BLOCKS, BLOCK_SIZE, H, D] at slot_mapping[T] (int64; slot = block * BLOCK_SIZE + offset; -1 means skip). T4096 H8 D128 BLOCK_SIZE16 NUM_BLOCKS 8192. Peer: torch index assignment."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def reshape_and_cache(key: T.In[T.bf16, ("T", "H", "D")], value: T.In[T.bf16, ("T", "H", "D")],
                      key_cache: T.InOut[T.bf16, ("NB", "BS", "H", "D")],
                      value_cache: T.InOut[T.bf16, ("NB", "BS", "H", "D")],
                      slot_mapping: T.In[T.i64, ("T",)]):
    NT, H, D = key.shape
    BS = T.cast(key_cache.shape[1], T.i64)
    heads, dims = T.domain(0, H), T.domain(0, D)
    for t in T.parallel(T.domain(0, NT)):
        slot = slot_mapping[t]
        if slot >= 0:
            blk = slot // BS
            off = slot % BS
            key_cache[blk, off, heads, dims] = key[t, heads, dims]
            value_cache[blk, off, heads, dims] = value[t, heads, dims]


KERNEL = reshape_and_cache


def inputs(shape, rng):
    NT, H, D, NB, BS = shape["T"], shape["H"], shape["D"], shape["NB"], shape["BS"]
    slots = rng.permutation(NB * BS)[:NT].astype(np.int64)
    slots[rng.random(NT) < 0.2] = -1
    return {"key": rng.standard_normal((NT, H, D)).astype(np.float32),
            "value": rng.standard_normal((NT, H, D)).astype(np.float32),
            "key_cache": rng.standard_normal((NB, BS, H, D)).astype(np.float32),
            "value_cache": rng.standard_normal((NB, BS, H, D)).astype(np.float32),
            "slot_mapping": slots}


def reference(key, value, key_cache, value_cache, slot_mapping):
    kc, vc = key_cache.copy(), value_cache.copy()
    NB, BS = kc.shape[:2]
    keep = slot_mapping >= 0
    s = slot_mapping[keep]
    kc[s // BS, s % BS] = key[keep]
    vc[s // BS, s % BS] = value[keep]
    return {"key_cache": kc, "value_cache": vc}


def peer(key, value, key_cache, value_cache, slot_mapping):
    import torch
    NB, BS = key_cache.shape[:2]
    keep = slot_mapping >= 0
    s = slot_mapping[keep]
    key_cache.view(NB * BS, *key_cache.shape[2:])[s] = key[keep]
    value_cache.view(NB * BS, *value_cache.shape[2:])[s] = value[keep]
    return {"key_cache": key_cache, "value_cache": value_cache}


TEST_SHAPES = [dict(T=1, H=1, D=1, NB=1, BS=1), dict(T=5, H=3, D=7, NB=3, BS=2),
               dict(T=13, H=2, D=129, NB=7, BS=3)]
BENCH_SHAPE = dict(T=4096, H=8, D=128, NB=8192, BS=16)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch index assignment"
