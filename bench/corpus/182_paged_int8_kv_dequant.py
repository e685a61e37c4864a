"""Paged int8 KV-cache dequantization: a paged cache [num_blocks, 16, H, D] int8 with f32 scales
[num_blocks, 16, H] (one per block, slot and head), a block table [B, max_blocks] int32 (entries past a
sequence's blocks are -1) and sequence lengths [B] int32; out [B, max_blocks * 16, H, D] bf16 holds the
dequantized values (int8 * scale) of positions < len and zeros beyond.
B=16 max_blocks=256 H=8 D=128 num_blocks=4096. Peer: torch.compile (gather through the table, multiply, mask)."""
import numpy as np
import tessel
import tessel.language as T

BS = 16


@tessel.kernel
def paged_int8_kv_dequant(cache: T.In[T.i8, ("NB", 16, "H", "D")],
                          scales: T.In[T.f32, ("NB", 16, "H")],
                          block_table: T.In[T.i32, ("B", "MB")],
                          seq_lens: T.In[T.i32, ("B",)],
                          out: T.Out[T.bf16, ("B", "L", "H", "D")]):     # L = MB * 16
    B, L, H, D = out.shape
    toks, heads, dims = T.domain(0, L), T.domain(0, H), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        t = T.indices(toks)
        live = t < T.cast(seq_lens[b], T.index)
        blk = T.load(block_table, (b, t // BS), valid=live, fill=0)
        q = T.load(cache, (blk, t % BS, heads, dims), valid=live, fill=0)          # [L, H, D] i8
        s = T.load(scales, (blk, t % BS, heads), valid=live, fill=0.0)             # [L, H]
        out[b, toks, heads, dims] = T.cast(T.cast(q, T.f32) * s, T.bf16)


KERNEL = paged_int8_kv_dequant
CONSTEXPRS = {}


def inputs(shape, rng):
    B, MB, H, D, NB = (shape[n] for n in ("B", "MB", "H", "D", "NB"))
    assert shape["L"] == MB * BS
    lens = rng.integers(0, MB * BS + 1, size=B).astype(np.int32)
    lens[0] = MB * BS                                   # one full sequence
    if B > 1:
        lens[1] = 0                                     # and one empty
    table = np.full((B, MB), -1, np.int32)
    for b in range(B):
        used = -(-int(lens[b]) // BS)
        table[b, :used] = rng.choice(NB, size=used, replace=used > NB)
    return dict(cache=rng.integers(-128, 128, size=(NB, BS, H, D)).astype(np.int8),
                scales=(rng.random((NB, BS, H)) * 0.02 + 0.001).astype(np.float32),
                block_table=table, seq_lens=lens)


def reference(cache, scales, block_table, seq_lens):
    B, MB = block_table.shape
    t = np.arange(MB * BS)
    live = t[None, :] < seq_lens[:, None]                                  # [B, L]
    blk = np.where(live, block_table[:, t // BS], 0)
    vals = cache[blk, t % BS].astype(np.float64) * scales[blk, t % BS][..., None]   # [B, L, H, D]
    return dict(out=np.where(live[:, :, None, None], vals, 0.0))


def peer(cache, scales, block_table, seq_lens):
    import torch
    B, MB = block_table.shape
    t = torch.arange(MB * BS, device=cache.device)
    live = t[None, :] < seq_lens[:, None]
    blk = torch.where(live, block_table[:, t // BS], 0).long()
    vals = cache[blk, t % BS].float() * scales[blk, t % BS][..., None]
    return dict(out=torch.where(live[:, :, None, None], vals, 0.0).to(torch.bfloat16))


def _shape(B, MB, H, D, NB):
    return dict(B=B, MB=MB, L=MB * BS, H=H, D=D, NB=NB)


TEST_SHAPES = [_shape(1, 1, 1, 1, 1), _shape(3, 2, 2, 17, 5), _shape(5, 3, 3, 64, 7),
               _shape(2, 5, 1, 131, 11)]
BENCH_SHAPE = _shape(16, 256, 8, 128, 4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-3)
PEER = "torch.compile"


def OPS(shape):
    B, L, H, D = shape["B"], shape["L"], shape["H"], shape["D"]
    return B * L * H * D, B * L * H * (D * (1 + 2) + 4) + 4 * B * shape["MB"]
