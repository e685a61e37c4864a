"""Decode attention over a paged KV cache (vLLM paged attention): K_cache, V_cache
[NUM_BLOCKS, BLOCK_SIZE, H, D], block_table [B, MAX_BLOCKS] (i32), seq_lens [B] (i32); one query per
sequence q [B, H, D]; out[b, h] = softmax(scale q[b, h] . K^T) V over the sequence's first seq_lens[b]
tokens, token t living at K_cache[block_table[b, t // BLOCK_SIZE], t % BLOCK_SIZE, h, :]. B32 H32
D128 f16, context 4096, block 16. Peer: gather the cache to dense, then SDPA."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def paged_decode_attention(q: T.In[T.f16, ("B", "H", "D")],
                           k_cache: T.In[T.f16, ("NBLK", "BS", "H", "D")],
                           v_cache: T.In[T.f16, ("NBLK", "BS", "H", "D")],
                           block_table: T.In[T.i32, ("B", "MB"), T.Range(0, "NBLK")],
                           seq_lens: T.In[T.i32, ("B",)],
                           out: T.Out[T.f16, ("B", "H", "D")],
                           scale: T.f32):
    B, H, D = q.shape
    BS = k_cache.shape[1]
    blocks, slots, dims = T.domain(0, block_table.shape[1]), T.domain(0, BS), T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        L = T.cast(seq_lens[b], T.index)
        mine = blocks[0:(L + BS - 1) // BS]                  # the blocks this sequence uses
        phys = block_table[b, mine]                          # physical block ids (i32 over mine)
        k = k_cache[phys, slots, h, dims]                    # [blocks, BS, D] (gather)
        v = v_cache[phys, slots, h, dims]
        s = T.contract(k, q[b, h, dims], reduce=((2, 0),), acc_dtype=T.f32) * scale   # [blocks, BS]
        pos = T.broadcast(T.indices(mine) * BS, over=(mine, slots), dims=[0]) + T.indices(slots)
        s = T.where(pos < L, s, -math.inf)                   # the last block's tail is not context
        p = T.exp(s - T.max(s))
        acc = T.contract(T.cast(p, T.f16), v, reduce=((0, 0), (1, 1)), acc_dtype=T.f32)  # [D]
        out[b, h, dims] = T.cast(acc / T.sum(p), T.f16)


KERNEL = paged_decode_attention
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, D, NBLK, BS, MB = (shape[n] for n in ("B", "H", "D", "NBLK", "BS", "MB"))
    seq_lens = rng.integers(1, MB * BS + 1, size=B)
    seq_lens[::3] = 1                                        # some one-token sequences
    seq_lens[-1] = MB * BS                                   # one full table
    # block ids out of order, repeated across (and within) sequences
    block_table = rng.integers(0, NBLK, size=(B, MB))
    if B > 1:
        block_table[1, :] = block_table[0, ::-1]
    return dict(q=rng.standard_normal((B, H, D)).astype(np.float16),
                k_cache=rng.standard_normal((NBLK, BS, H, D)).astype(np.float16),
                v_cache=rng.standard_normal((NBLK, BS, H, D)).astype(np.float16),
                block_table=block_table.astype(np.int32),
                seq_lens=seq_lens.astype(np.int32),
                scale=1.0 / math.sqrt(D))


def reference(q, k_cache, v_cache, block_table, seq_lens, scale):
    B, H, D = q.shape
    BS = k_cache.shape[1]
    out = np.zeros((B, H, D))
    for b in range(B):
        L = int(seq_lens[b])
        t = np.arange(L)
        blk = block_table[b, t // BS]
        k = k_cache[blk, t % BS].astype(np.float64)          # [L, H, D]
        v = v_cache[blk, t % BS].astype(np.float64)
        s = np.einsum("hd,thd->ht", q[b].astype(np.float64), k) * scale
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        out[b] = np.einsum("ht,thd->hd", p, v)
    return dict(out=out)


def peer(q, k_cache, v_cache, block_table, seq_lens, scale):
    import torch
    import torch.nn.functional as F
    B, MB = block_table.shape
    NBLK, BS, H, D = k_cache.shape
    k = k_cache[block_table.long()].reshape(B, MB * BS, H, D).transpose(1, 2)   # [B, H, T, D]
    v = v_cache[block_table.long()].reshape(B, MB * BS, H, D).transpose(1, 2)
    mask = torch.arange(MB * BS, device=q.device)[None, :] < seq_lens[:, None]
    o = F.scaled_dot_product_attention(q[:, :, None, :], k, v, attn_mask=mask[:, None, None, :],
                                       scale=scale)
    return dict(out=o[:, :, 0, :])


TEST_SHAPES = [dict(B=1, H=1, D=16, NBLK=1, BS=1, MB=1),
               dict(B=3, H=2, D=32, NBLK=7, BS=4, MB=5),
               dict(B=5, H=3, D=24, NBLK=13, BS=16, MB=3),
               dict(B=4, H=1, D=128, NBLK=3, BS=5, MB=11)]
BENCH_SHAPE = dict(B=32, H=32, D=128, NBLK=32 * 256, BS=16, MB=256)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "gather to dense + torch.nn.functional.scaled_dot_product_attention"



def OPS(shape):
    B, H, D, BS, MB = (shape[n] for n in ("B", "H", "D", "BS", "MB"))
    Tk = BS * MB
    return 4 * B * H * Tk * D, 2 * (2 * B * Tk * H * D + 2 * B * H * D) + 4 * B * (MB + 1)
