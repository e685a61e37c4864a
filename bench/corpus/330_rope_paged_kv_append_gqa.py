"""Rotary embedding fused with the paged KV-cache append for grouped-query attention (the step every
prefill and decode runs before attention: vLLM's rotary_embedding (neox style) followed by
reshape_and_cache_flash, fused as TensorRT-LLM's and SGLang's rope + cache-write kernels do): each new token
t of sequence seq_ids[t] (i32 [T]) sits at position positions[t] (i64 [T]); cos_sin f32 [P, D] holds the
rotary table, cos in its first D/2 columns and sin in the last D/2; with rotate-half RoPE, rot(x, p) =
(x1 cos[p] - x2 sin[p], x2 cos[p] + x1 sin[p]) for the halves x1, x2 of a head, q_out[t, h] = rot(q[t, h],
positions[t]) for the HQ query heads (bf16 [T, HQ, D]), and the HKV key heads, rotated, and the value heads,
as they are, are written into the paged caches key_cache, value_cache bf16 [NB, BS, HKV, D] at row
positions[t] % BS of block block_tables[seq_ids[t], positions[t] // BS] (block_tables i32 [B, MAXB]); every
other cache row keeps its contents. f32 math, one rounding to bf16. T8192 (16 sequences of 512 new tokens at
positions up to 4096) HQ32 HKV8 D128 BS16 NB4096 P8192. Peer: torch.compile of the rotation, then index_put
into the caches (vLLM's reference path)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rope_paged_kv_append(q: T.In[T.bf16, ("T", "HQ", "D")], k: T.In[T.bf16, ("T", "HKV", "D")],
                         v: T.In[T.bf16, ("T", "HKV", "D")], positions: T.In[T.i64, ("T",)],
                         seq_ids: T.In[T.i32, ("T",)], block_tables: T.In[T.i32, ("B", "MAXB")],
                         cos_sin: T.In[T.f32, ("P", "D")], q_out: T.Out[T.bf16, ("T", "HQ", "D")],
                         key_cache: T.InOut[T.bf16, ("NB", "BS", "HKV", "D")],
                         value_cache: T.InOut[T.bf16, ("NB", "BS", "HKV", "D")]):
    NT, HQ, D = q.shape
    HKV = k.shape[1]
    BS = key_cache.shape[1]
    H = D // 2
    dims = T.domain(0, D)
    lo, hi = dims[0:H], dims[H:2 * H]
    qheads, kvheads = T.domain(0, HQ), T.domain(0, HKV)
    for t in T.parallel(T.domain(0, NT)):
        pos = T.cast(positions[t], T.index)
        c, s = cos_sin[pos, lo], cos_sin[pos, hi]
        q1 = T.cast(q[t, qheads, lo], T.f32)
        q2 = T.cast(q[t, qheads, hi], T.f32)
        q_out[t, qheads, lo] = T.cast(q1 * c - q2 * s, T.bf16)
        q_out[t, qheads, hi] = T.cast(q2 * c + q1 * s, T.bf16)
        blk = block_tables[seq_ids[t], pos // BS]
        row = pos % BS
        k1 = T.cast(k[t, kvheads, lo], T.f32)
        k2 = T.cast(k[t, kvheads, hi], T.f32)
        key_cache[blk, row, kvheads, lo] = T.cast(k1 * c - k2 * s, T.bf16)
        key_cache[blk, row, kvheads, hi] = T.cast(k2 * c + k1 * s, T.bf16)
        value_cache[blk, row, kvheads, dims] = v[t, kvheads, dims]


KERNEL = rope_paged_kv_append


def _layout(shape, rng):
    """Sequences' new tokens, packed: each sequence b gets a run of tokens at consecutive positions after
    its cached prefix; every sequence owns MAXB distinct blocks of the cache (a random permutation)."""
    NT, B, MAXB, BS, NB, P = (shape[s] for s in ("T", "B", "MAXB", "BS", "NB", "P"))
    cap = min(MAXB * BS, P)
    counts = np.zeros(B, np.int64)
    if NT:
        counts = np.bincount(rng.integers(0, B, NT), minlength=B)
        counts = np.minimum(counts, cap)
        while counts.sum() < NT:                      # fill up to T tokens within each sequence's capacity
            b = int(np.argmin(counts))
            counts[b] += 1
    seq_ids = np.repeat(np.arange(B), counts).astype(np.int32)
    positions = np.concatenate([rng.integers(0, cap - c + 1) + np.arange(c) for c in counts]) if NT else \
        np.zeros(0, np.int64)
    blocks = rng.permutation(NB)[:B * MAXB].reshape(B, MAXB).astype(np.int32)
    return seq_ids, positions.astype(np.int64), blocks


def inputs(shape, rng):
    NT, HQ, HKV, D, NB, BS, P = (shape[s] for s in ("T", "HQ", "HKV", "D", "NB", "BS", "P"))
    assert NB >= shape["B"] * shape["MAXB"]
    seq_ids, positions, blocks = _layout(shape, rng)
    inv = 1.0 / 10000.0 ** (np.arange(D // 2) * 2.0 / max(D, 1))
    ang = np.arange(P)[:, None] * inv[None, :]
    cos_sin = np.zeros((P, D), np.float32)
    cos_sin[:, :D // 2], cos_sin[:, D // 2:2 * (D // 2)] = np.cos(ang), np.sin(ang)
    return dict(q=rng.standard_normal((NT, HQ, D)).astype(np.float32),
                k=rng.standard_normal((NT, HKV, D)).astype(np.float32),
                v=rng.standard_normal((NT, HKV, D)).astype(np.float32),
                positions=positions, seq_ids=seq_ids, block_tables=blocks, cos_sin=cos_sin,
                key_cache=rng.standard_normal((NB, BS, HKV, D)).astype(np.float32),
                value_cache=rng.standard_normal((NB, BS, HKV, D)).astype(np.float32))


def _bf16(a):
    import _harness
    return _harness._round_bf16(np.asarray(a, np.float32))


def _rot(x, c, s):
    H = c.shape[-1]
    x1, x2 = x[..., :H], x[..., H:2 * H]
    out = np.array(x, np.float32)
    out[..., :H] = x1 * c - x2 * s
    out[..., H:2 * H] = x2 * c + x1 * s
    return out


def reference(q, k, v, positions, seq_ids, block_tables, cos_sin, key_cache, value_cache):
    H = q.shape[2] // 2
    c = cos_sin[positions, :H][:, None, :]
    s = cos_sin[positions, H:2 * H][:, None, :]
    BS = key_cache.shape[1]
    blk = block_tables[seq_ids, positions // BS]
    kc, vc = key_cache.copy(), value_cache.copy()
    kc[blk, positions % BS] = _bf16(_rot(k, c, s))
    vc[blk, positions % BS] = v
    return dict(q_out=_bf16(_rot(q, c, s)), key_cache=kc, value_cache=vc)


def peer(q, k, v, positions, seq_ids, block_tables, cos_sin, key_cache, value_cache):
    import torch
    H = q.shape[2] // 2
    c = cos_sin[positions, :H][:, None, :]
    s = cos_sin[positions, H:2 * H][:, None, :]

    def rot(x):
        x = x.float()
        x1, x2 = x[..., :H], x[..., H:]
        return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(torch.bfloat16)

    BS = key_cache.shape[1]
    blk = block_tables[seq_ids.long(), positions // BS].long()
    key_cache[blk, positions % BS] = rot(k)
    value_cache[blk, positions % BS] = v
    return dict(q_out=rot(q), key_cache=key_cache, value_cache=value_cache)


def OPS(shape):
    NT, HQ, HKV, D = shape["T"], shape["HQ"], shape["HKV"], shape["D"]
    return 6 * NT * (HQ + HKV) * D, 2 * NT * D * (2 * HQ + 4 * HKV) + 8 * NT * D + 16 * NT


TEST_SHAPES = [dict(T=1, HQ=1, HKV=1, D=2, B=1, MAXB=1, NB=1, BS=1, P=1),
               dict(T=5, HQ=2, HKV=1, D=6, B=2, MAXB=3, NB=7, BS=3, P=11),
               dict(T=29, HQ=6, HKV=2, D=10, B=2, MAXB=5, NB=13, BS=7, P=37)]
BENCH_SHAPE = dict(T=8192, HQ=32, HKV=8, D=128, B=16, MAXB=256, NB=4096, BS=16, P=8192)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
