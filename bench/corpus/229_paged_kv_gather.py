"""Copy a paged KV cache into a contiguous one: cache [NUM_BLOCKS, BS, H, D] bf16, block_table [B, MAXB]
int32, seq_lens [B] int32; out [B, L, H, D] bf16 with out[b, p] = cache[block_table[b, p // BS], p % BS]
for p < seq_lens[b] and zero for p >= seq_lens[b] (L = MAXB * BS). B=32 L=4096 H=8 D=128 BS=16.
Peer: torch.compile (a gather through the block table and a mask)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def paged_kv_gather(cache: T.In[T.bf16, ("NB", "BS", "H", "D")],
                    block_table: T.In[T.i32, ("B", "MAXB"), T.Range(0, "NB")],
                    seq_lens: T.In[T.i32, ("B",)], out: T.Out[T.bf16, ("B", "L", "H", "D")]):
    NB, BS, H, D = cache.shape
    B, L = out.shape[0], out.shape[1]
    toks, heads, dims = T.domain(0, L), T.domain(0, H), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        t = T.indices(toks)
        live = T.broadcast(t < T.cast(seq_lens[b], T.index), over=(toks, heads, dims), dims=[0])
        out[b, toks, heads, dims] = T.load(cache, (block_table[b, t // BS], t % BS, heads, dims),
                                           valid=live, fill=0.0)


KERNEL = paged_kv_gather
CONSTEXPRS = {}


def inputs(shape, rng):
    NB, BS, H, D, B, MAXB, L = (shape[n] for n in ("NB", "BS", "H", "D", "B", "MAXB", "L"))
    assert L == MAXB * BS
    lens = rng.integers(0, L + 1, size=B)
    if B > 1:
        lens[0] = L                                # one full sequence
    table = np.zeros((B, MAXB), np.int32)          # unused slots point at block 0, as vLLM pads
    for b in range(B):
        used = -(-int(lens[b]) // BS)
        table[b, :used] = rng.integers(0, NB, size=used)
    return dict(cache=rng.standard_normal((NB, BS, H, D), dtype=np.float32),
                block_table=table, seq_lens=lens.astype(np.int32))


def reference(cache, block_table, seq_lens):
    BS = cache.shape[1]
    B, MAXB = block_table.shape
    L = MAXB * BS
    p = np.arange(L)
    out = cache[block_table[:, p // BS], p % BS].astype(np.float64)          # [B, L, H, D]
    out[p[None, :] >= seq_lens[:, None]] = 0.0
    return dict(out=out)


def peer(cache, block_table, seq_lens):
    import torch
    BS = cache.shape[1]
    B, MAXB = block_table.shape
    p = torch.arange(MAXB * BS, device=cache.device)
    out = cache[block_table[:, p // BS].long(), p % BS]
    return dict(out=out * (p[None, :] < seq_lens[:, None]).to(cache.dtype)[:, :, None, None])


def _shape(B, MAXB, BS, H, D, NB):
    return dict(B=B, MAXB=MAXB, BS=BS, L=MAXB * BS, H=H, D=D, NB=NB)


TEST_SHAPES = [_shape(1, 1, 1, 1, 1, 1), _shape(3, 5, 3, 2, 7, 11), _shape(5, 7, 16, 3, 13, 29),
               _shape(2, 3, 5, 1, 130, 4)]
BENCH_SHAPE = _shape(32, 256, 16, 8, 128, 32 * 256)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"


def OPS(shape):
    B, L, H, D = shape["B"], shape["L"], shape["H"], shape["D"]
    return 0, 2 * 2 * B * L * H * D + 4 * B * shape["MAXB"]
