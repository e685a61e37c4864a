"""Mixture-of-depths token selection (the router of MoD transformers: each block processes only the top
tokens of each sequence): router scores f32 [B, T]; per sequence, the C = T // 8 tokens with the highest
scores (ties to the lower index) are selected: output a mask i8 [B, T] (1 where selected, else 0) and
gate f32 [B, T] = sigmoid(score) where selected, else 0. B64 T4096. Peer: torch.compile (topk + scatter)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def mod_select(scores: T.In[T.f32, ("B", "T")], mask: T.Out[T.i8, ("B", "T")], gate: T.Out[T.f32, ("B", "T")]):
    B, NT = scores.shape
    toks = T.domain(0, NT)
    cap = T.cast(NT // 8, T.i32)
    others = T.indices(toks)
    for b, i in T.parallel(T.domain(0, B), toks):
        s = scores[b, i]
        row = scores[b, toks]
        ahead = (row > s) | ((row == s) & (others < i))            # tokens ranked before token i
        chosen = T.sum(T.cast(ahead, T.i32)) < cap
        mask[b, i] = T.cast(chosen, T.i8)
        gate[b, i] = T.where(chosen, T.sigmoid(s), 0.0)


KERNEL = mod_select


def inputs(shape, rng):
    B, NT = shape["B"], shape["T"]
    s = rng.standard_normal((B, NT))
    if B * NT:                                                   # a few exact ties
        flat = s.reshape(-1)
        flat[rng.integers(0, flat.size, max(1, flat.size // 8))] = 0.5
    return dict(scores=s.astype(np.float32))


def reference(scores):
    B, NT = scores.shape
    C = NT // 8
    mask = np.zeros((B, NT), np.int8)
    for b in range(B):
        order = np.lexsort((np.arange(NT), -scores[b].astype(np.float64)))   # score descending, index ascending
        mask[b, order[:C]] = 1
    sig = 1.0 / (1.0 + np.exp(-scores.astype(np.float64)))
    return dict(mask=mask, gate=np.where(mask == 1, sig, 0.0))


def peer(scores):
    import torch
    B, NT = scores.shape
    C = NT // 8
    # stable descending sort puts ties in index order, as the selection wants
    idx = torch.sort(scores, dim=1, descending=True, stable=True).indices[:, :C]
    mask = torch.zeros(B, NT, dtype=torch.int8, device=scores.device).scatter_(1, idx, 1)
    gate = torch.where(mask.bool(), torch.sigmoid(scores), torch.zeros_like(scores))
    return dict(mask=mask, gate=gate)


def OPS(shape):
    B, NT = shape["B"], shape["T"]
    return 3 * B * NT * NT, 4 * B * NT + 5 * B * NT


TEST_SHAPES = [dict(B=1, T=1), dict(B=2, T=8), dict(B=3, T=37), dict(B=2, T=131)]
BENCH_SHAPE = dict(B=64, T=4096)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"
