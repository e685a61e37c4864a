"""Position ids from padded token ids (HF transformers' create_position_ids_from_input_ids, RoBERTa /
XLM-R / ESM embeddings): for ids i64 [B, L] and the padding id padding_idx (a runtime i64), a non-padding
token's position is padding_idx + the number of non-padding tokens up to and including it in its row,
and a padding token's position is padding_idx; pos i64 [B, L]. B256 L4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def roberta_position_ids(ids: T.In[T.i64, ("B", "L")], pos: T.Out[T.i64, ("B", "L")], padding_idx: T.i64):
    B, L = ids.shape
    cols = T.domain(0, L)
    for b in T.parallel(T.domain(0, B)):
        mask = T.where(ids[b, cols] != padding_idx, 1, 0, dtype=T.i64)
        pos[b, cols] = T.cumsum(mask) * mask + padding_idx


KERNEL = roberta_position_ids


def inputs(shape, rng):
    B, L = shape["B"], shape["L"]
    ids = rng.integers(2, 50000, (B, L)).astype(np.int64)
    for b in range(B):  # right padding of a random length, and a few pads inside (as ids may hold)
        ids[b, L - rng.integers(0, L + 1):] = 1
    ids[rng.random((B, L)) < 0.05] = 1
    return dict(ids=ids, padding_idx=1)


def reference(ids, padding_idx):
    mask = (ids != padding_idx).astype(np.int64)
    return dict(pos=np.cumsum(mask, axis=1) * mask + padding_idx)


def peer(ids, padding_idx):
    import torch
    mask = ids.ne(padding_idx).int()
    return dict(pos=(torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx)


def OPS(shape):
    n = shape["B"] * shape["L"]
    return 3 * n, 16 * n


TEST_SHAPES = [dict(B=1, L=1), dict(B=3, L=127), dict(B=17, L=1031)]
BENCH_SHAPE = dict(B=256, L=4096)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"
