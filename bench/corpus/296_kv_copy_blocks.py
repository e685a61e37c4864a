"""Copy-on-write of paged KV-cache blocks (vLLM's copy_blocks, run when a forked sequence -- parallel
sampling, beam search, a shared prefix -- writes into a block it shares): key_cache and value_cache bf16
[NUM_BLOCKS, BS, H, D] are updated in place; block_mapping i64 [P, 2] lists (src, dst) pairs, and for each
pair the whole block dst of both caches becomes a copy of block src (the destinations are distinct and no
destination is also a source). NUM_BLOCKS 16384, BS 16, H 8, D 128 (one layer), P 512. Peer: torch
index_copy_ (cache[dst] = cache[src])."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def kv_copy_blocks(key_cache: T.InOut[T.bf16, ("NB", "BS", "H", "D")],
                   value_cache: T.InOut[T.bf16, ("NB", "BS", "H", "D")],
                   block_mapping: T.In[T.i64, ("P", 2)]):
    NB, BS, H, D = key_cache.shape
    P = block_mapping.shape[0]
    slots, heads, dims = T.domain(0, BS), T.domain(0, H), T.domain(0, D)
    for i in T.parallel(T.domain(0, P)):
        src, dst = block_mapping[i, 0], block_mapping[i, 1]
        key_cache[dst, slots, heads, dims] = key_cache[src, slots, heads, dims]
        value_cache[dst, slots, heads, dims] = value_cache[src, slots, heads, dims]


KERNEL = kv_copy_blocks


def inputs(shape, rng):
    NB, BS, H, D, P = shape["NB"], shape["BS"], shape["H"], shape["D"], shape["P"]
    assert 2 * P <= NB
    perm = rng.permutation(NB)
    src = perm[:P] if P == 0 else rng.choice(perm[:P], size=P)         # a source may be copied twice
    dst = perm[P:2 * P]
    s = (NB, BS, H, D)
    return dict(key_cache=rng.standard_normal(s).astype(np.float32),
                value_cache=rng.standard_normal(s).astype(np.float32),
                block_mapping=np.stack([src, dst], axis=1).astype(np.int64).reshape(P, 2))


def reference(key_cache, value_cache, block_mapping):
    k, v = key_cache.copy(), value_cache.copy()
    k[block_mapping[:, 1]] = key_cache[block_mapping[:, 0]]
    v[block_mapping[:, 1]] = value_cache[block_mapping[:, 0]]
    return dict(key_cache=k, value_cache=v)


def peer(key_cache, value_cache, block_mapping):
    src, dst = block_mapping[:, 0], block_mapping[:, 1]
    key_cache.index_copy_(0, dst, key_cache[src])
    value_cache.index_copy_(0, dst, value_cache[src])
    return dict(key_cache=key_cache, value_cache=value_cache)


def OPS(shape):
    n = shape["P"] * shape["BS"] * shape["H"] * shape["D"]
    return 0, 2 * 2 * 2 * n


TEST_SHAPES = [dict(NB=2, BS=1, H=1, D=1, P=1), dict(NB=7, BS=3, H=2, D=5, P=3), dict(NB=29, BS=16, H=3, D=37, P=11)]
BENCH_SHAPE = dict(NB=16384, BS=16, H=8, D=128, P=512)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch"
