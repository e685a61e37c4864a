"""DeepSeek-V3 MoE routing with group-limited top-k and the auxiliary-loss-free bias (vLLM's
grouped_topk with scoring "sigmoid" and e_score_correction_bias; HF DeepseekV3TopkRouter): for router
logits f32 [T, E] and the correction bias f32 [E], scores = sigmoid(logits); biased = scores + bias; the
E experts form 8 groups of E / 8 consecutive experts, a group's score is the sum of its two largest biased
scores, and only the 4 best groups are eligible (ties: the lower group); among their experts the 8 with the
largest biased scores are chosen, in descending order (ties: the lower expert), ids i32 [T, 8]; their
weights are their unbiased scores normalized to sum 1 and multiplied by the routed scaling factor 2.5,
weights f32 [T, 8]. T16384 E256. Peer: torch.compile of the vLLM reference (topk on both levels)."""
import math

import numpy as np
import tessel
import tessel.language as T

NG, TOPK_GROUP, TOPK, SCALE = 8, 4, 8, 2.5


@tessel.kernel
def grouped_topk_router(logits: T.In[T.f32, ("T", "E")], bias: T.In[T.f32, ("E",)],
                        ids: T.Out[T.i32, ("T", TOPK)], weights: T.Out[T.f32, ("T", TOPK)]):
    NT, E = logits.shape
    GS = E // NG
    experts = T.domain(0, E)
    grp = T.indices(experts) // GS
    for t in T.parallel(T.domain(0, NT)):
        scores = T.sigmoid(logits[t, experts])
        biased = scores + bias[experts]
        # each group's score: the sum of its two largest biased scores
        gscore = []
        for g in range(NG):
            mine = experts[g * GS:g * GS + GS]
            s = T.sigmoid(logits[t, mine]) + bias[mine]
            first, at = T.argmax(s)
            second = T.max(T.where(T.indices(mine) == at + g * GS, -math.inf, s))
            gscore.append(first + second)
        # the TOPK_GROUP best groups (a group is beaten by a larger score, or an equal one of a lower group)
        eligible = T.full_like(grp, False)
        for g in range(NG):
            beaten = T.i32(0)
            for h in range(NG):
                if h != g:
                    wins = (gscore[h] > gscore[g]) | ((gscore[h] == gscore[g]) & (h < g))
                    beaten = beaten + T.where(wins, 1, 0, dtype=T.i32)
            eligible = eligible | ((beaten < TOPK_GROUP) & (grp == g))
        cur = T.where(eligible, biased, -math.inf)
        picked = []
        for k in range(TOPK):
            _, e = T.argmax(cur)
            ids[t, k] = T.cast(e, T.i32)
            picked.append(T.sigmoid(logits[t, e]))
            cur = T.where(T.indices(experts) == e, -math.inf, cur)
        total = picked[0]
        for k in range(1, TOPK):
            total = total + picked[k]
        for k in range(TOPK):
            weights[t, k] = picked[k] / total * SCALE


KERNEL = grouped_topk_router


def inputs(shape, rng):
    NT, E = shape["T"], shape["E"]
    assert E % NG == 0 and E // NG >= 2
    return dict(logits=rng.standard_normal((NT, E)).astype(np.float32),
                bias=(0.1 * rng.standard_normal(E)).astype(np.float32))


def _sigmoid32(x):
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)


def reference(logits, bias):
    NT, E = logits.shape
    GS = E // NG
    scores = _sigmoid32(logits)
    biased = (scores + bias).astype(np.float32)
    ids = np.zeros((NT, TOPK), np.int32)
    w = np.zeros((NT, TOPK))
    for t in range(NT):
        grouped = biased[t].reshape(NG, GS)
        gs = -np.sort(-grouped, axis=1)[:, :2].sum(axis=1)
        keep = np.argsort(-gs, kind="stable")[:TOPK_GROUP]
        cur = np.full(E, -np.inf, np.float32)
        for g in keep:
            cur[g * GS:(g + 1) * GS] = biased[t, g * GS:(g + 1) * GS]
        top = np.argsort(-cur, kind="stable")[:TOPK]
        ids[t] = top
        sel = scores[t, top].astype(np.float64)
        w[t] = sel / sel.sum() * SCALE
    return dict(ids=ids, weights=w)


def peer(logits, bias):
    import torch
    NT, E = logits.shape
    scores = logits.sigmoid()
    biased = scores + bias
    gs = biased.view(NT, NG, -1).topk(2, dim=-1)[0].sum(dim=-1)
    gidx = torch.topk(gs, k=TOPK_GROUP, dim=-1, sorted=False)[1]
    gmask = torch.zeros_like(gs).scatter_(1, gidx, 1)
    smask = gmask.unsqueeze(-1).expand(NT, NG, E // NG).reshape(NT, -1)
    top = torch.topk(biased.masked_fill(~smask.bool(), float("-inf")), k=TOPK, dim=-1)[1]
    w = scores.gather(1, top)
    return dict(ids=top.to(torch.int32), weights=w / w.sum(dim=-1, keepdim=True) * SCALE)


def OPS(shape):
    n = shape["T"] * shape["E"]
    return 40 * n, 4 * n + 4 * shape["E"] + 8 * shape["T"] * TOPK


# small: under TRITON_INTERPRET=1 one token's program takes about 20 s (its ~100 block loops, see the report)
TEST_SHAPES = [dict(T=1, E=16), dict(T=1, E=24), dict(T=3, E=64)]
BENCH_SHAPE = dict(T=16384, E=256)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"
