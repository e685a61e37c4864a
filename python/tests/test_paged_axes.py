"""Paged decode attention in its natural spelling (corpus 46, issue 42): scores over [blocks, slots] of
K[table[b, blocks], slots, h, :], a maximum and the sums over both axes. kir-merge-reduced-axes makes the
two axes one (token t at block table[b, t // BS], slot t % BS), so kir-online-folds folds it and
construction reads BLOCK_A0 tokens as one tile (one member per program), as for the token-loop spelling
(corpus 46_b). Before, it ran as scalar loops over blocks x slots and recomputed every score per output
channel.

The KIR interpreter, the pgpu interpreter after the shared pipeline with 16-wide token tiles, and the
Triton provider under TRITON_INTERPRET=1 are held to a NumPy reference on a block table with repeated and
out-of-order blocks, contexts 1, 17 and 13 (a prime; no multiple of the block), an odd head dim.
"""
import math
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

from interp_cli import run_three_ways  # noqa: E402


@tessel.kernel
def paged_decode(q: T.In[T.f32, ("B", "H", "D")], k_cache: T.In[T.f32, ("NBLK", "BS", "H", "D")],
                 v_cache: T.In[T.f32, ("NBLK", "BS", "H", "D")],
                 block_table: T.In[T.i32, ("B", "MB"), T.Range(0, "NBLK")], seq_lens: T.In[T.i32, ("B",)],
                 out: T.Out[T.f32, ("B", "H", "D")], scale: T.f32):
    B, H, D = q.shape
    BS = k_cache.shape[1]
    blocks, slots, dims = T.domain(0, block_table.shape[1]), T.domain(0, BS), T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        L = T.cast(seq_lens[b], T.index)
        mine = blocks[0:(L + BS - 1) // BS]
        phys = block_table[b, mine]
        k = k_cache[phys, slots, h, dims]
        v = v_cache[phys, slots, h, dims]
        s = T.contract(k, q[b, h, dims], reduce=((2, 0),), acc_dtype=T.f32) * scale
        pos = T.broadcast(T.indices(mine) * BS, over=(mine, slots), dims=[0]) + T.indices(slots)
        s = T.where(pos < L, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.contract(p, v, reduce=((0, 0), (1, 1)), acc_dtype=T.f32)
        out[b, h, dims] = acc / T.sum(p)


def reference(q, k_cache, v_cache, block_table, seq_lens, scale):
    B, H, D = q.shape
    BS = k_cache.shape[1]
    out = np.zeros((B, H, D))
    for b in range(B):
        t = np.arange(int(seq_lens[b]))
        k = k_cache[block_table[b, t // BS], t % BS].astype(np.float64)
        v = v_cache[block_table[b, t // BS], t % BS].astype(np.float64)
        s = np.einsum("hd,thd->ht", q[b].astype(np.float64), k) * scale
        p = np.exp(s - s.max(-1, keepdims=True))
        out[b] = np.einsum("ht,thd->hd", p / p.sum(-1, keepdims=True), v)
    return out


def case(shape, lens, seed):
    rng = np.random.default_rng(seed)
    B, H, D, NBLK, BS, MB = (shape[n] for n in ("B", "H", "D", "NBLK", "BS", "MB"))
    table = rng.integers(0, NBLK, size=(B, MB))
    table[0, :] = table[-1, ::-1]                     # out of order, and repeated across sequences
    table[-1, 1] = table[-1, 0]                       # repeated within one
    inputs = dict(q=rng.standard_normal((B, H, D)).astype(np.float32),
                  k_cache=rng.standard_normal((NBLK, BS, H, D)).astype(np.float32),
                  v_cache=rng.standard_normal((NBLK, BS, H, D)).astype(np.float32),
                  block_table=table.astype(np.int32), seq_lens=np.array(lens, dtype=np.int32))
    scale = 1.0 / math.sqrt(D)
    return inputs, scale, reference(**inputs, scale=scale)


def test_merged_axes_fold(tessel_bin, tmp_path):
    # Contexts 1, 17 and 13 over 4-slot blocks: one token, a full table plus one, a prime.
    shape = dict(B=3, H=2, D=7, NBLK=6, BS=4, MB=5)
    inputs, scale, want = case(shape, [1, 17, 13], 0)
    run_three_ways(paged_decode, tessel_bin, tmp_path, shape, inputs, {"scale": scale}, "out", want,
                   dict(rtol=1e-4, atol=1e-5))


@pytest.mark.deep(reason="more block sizes and contexts; test_merged_axes_fold covers the path")
@pytest.mark.parametrize("shape,lens", [
    (dict(B=2, H=1, D=1, NBLK=1, BS=1, MB=3), [1, 3]),       # one-slot blocks, one physical block
    (dict(B=4, H=3, D=5, NBLK=7, BS=5, MB=7), [31, 1, 35, 17]),
    (dict(B=2, H=1, D=33, NBLK=3, BS=16, MB=4), [64, 53]),
])
def test_merged_axes_fold_deep(tessel_bin, tmp_path, shape, lens):
    inputs, scale, want = case(shape, lens, 1)
    run_three_ways(paged_decode, tessel_bin, tmp_path, shape, inputs, {"scale": scale}, "out", want,
                   dict(rtol=1e-4, atol=1e-5))
