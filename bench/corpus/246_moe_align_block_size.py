"""MoE token alignment (vLLM's moe_align_block_size, block 16): topk_ids [NT] int32 (the flattened
expert choice of every token slot, experts 0..E-1). Each expert's slots are counted and the count
padded up to a multiple of 16; offsets[e] is the start of expert e's padded segment (the padded counts
of experts before it summed), total[0] the padded total. sorted_ids (int32 [CAP], filled with NT by the
caller) receives, in each expert's segment, the slot indices choosing that expert in increasing order
(the padding keeps NT); expert_ids (int32 [NBLK], filled with -1) gets e for each 16-slot block of
expert e's segment. NT = 16384 tokens x top-2, E64, CAP = NT + E * 15, NBLK = CAP / 16. Peer: torch
(sort and bincount, as vLLM's moe_align_block_size reference)."""
import numpy as np
import tessel
import tessel.language as T

BS = 16


@tessel.kernel
def moe_align_block_size(topk_ids: T.In[T.i32, ("NT",), T.Range(0, "E")], sorted_ids: T.InOut[T.i32, ("CAP",)],
                         expert_ids: T.InOut[T.i32, ("NBLK",)], offsets: T.Out[T.i32, ("E",)],
                         total: T.Out[T.i32, (1,)]):
    NT = topk_ids.shape[0]
    E = offsets.shape[0]
    slots, experts, blocks = T.domain(0, NT), T.domain(0, E), T.domain(0, expert_ids.shape[0])
    total[0] = T.sum((T.histogram(topk_ids[slots], experts) + (BS - 1)) // BS * BS)
    for e in T.parallel(experts):
        ids = topk_ids[slots]
        padded = (T.histogram(ids, experts) + (BS - 1)) // BS * BS        # every expert's (E is small)
        start = T.sum(T.where(T.indices(experts) < e, padded, 0))
        offsets[e] = start
        mine = ids == T.cast(e, T.i32)
        rank = T.cumsum(T.cast(mine, T.i32), exclusive=True)             # position among expert e's slots
        T.store(sorted_ids, (start + rank,), T.cast(T.indices(slots), T.i32), valid=mine)
        nb = T.indices(blocks)
        T.store(expert_ids, (T.cast(start // BS, T.index) + nb,), T.cast(e, T.i32), valid=nb < T.cast(padded[e] // BS, T.index))


KERNEL = moe_align_block_size


def inputs(shape, rng):
    NT, E, CAP, NBLK = shape["NT"], shape["E"], shape["CAP"], shape["NBLK"]
    assert CAP == NT + E * (BS - 1) and NBLK == -(-CAP // BS)
    return dict(topk_ids=rng.integers(0, E, NT).astype(np.int32), sorted_ids=np.full(CAP, NT, np.int32),
                expert_ids=np.full(NBLK, -1, np.int32))


def reference(topk_ids, sorted_ids, expert_ids):
    NT, E = len(topk_ids), None
    E = (len(sorted_ids) - NT) // (BS - 1)
    counts = np.bincount(topk_ids, minlength=E)
    padded = (counts + BS - 1) // BS * BS
    offsets = np.concatenate([[0], np.cumsum(padded)[:-1]]).astype(np.int32)
    s, b = sorted_ids.copy(), expert_ids.copy()
    for e in range(E):
        mine = np.nonzero(topk_ids == e)[0]
        s[offsets[e]:offsets[e] + len(mine)] = mine
        b[offsets[e] // BS:(offsets[e] + padded[e]) // BS] = e
    return dict(sorted_ids=s, expert_ids=b, offsets=offsets, total=np.array([padded.sum()], np.int32))


def peer(topk_ids, sorted_ids, expert_ids):
    import torch
    NT = topk_ids.numel()
    E = (sorted_ids.numel() - NT) // (BS - 1)
    counts = torch.bincount(topk_ids, minlength=E)
    padded = (counts + BS - 1) // BS * BS
    ends = padded.cumsum(0)
    offsets = ends - padded
    order = torch.sort(topk_ids, stable=True).indices
    rank = torch.arange(NT, device=topk_ids.device) - (counts.cumsum(0) - counts)[topk_ids[order]]
    sorted_ids[offsets[topk_ids[order]] + rank] = order.to(torch.int32)
    blk = torch.arange(expert_ids.numel(), device=topk_ids.device) * BS
    e_of = torch.searchsorted(ends, blk, right=True)
    expert_ids.copy_(torch.where(blk < ends[-1], e_of, -1).to(torch.int32))
    return dict(sorted_ids=sorted_ids, expert_ids=expert_ids, offsets=offsets.to(torch.int32),
                total=ends[-1:].to(torch.int32))


def _shape(NT, E):
    cap = NT + E * (BS - 1)
    return dict(NT=NT, E=E, CAP=cap, NBLK=-(-cap // BS))


TEST_SHAPES = [_shape(1, 1), _shape(37, 5), _shape(263, 8)]
BENCH_SHAPE = _shape(32768, 64)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch"
