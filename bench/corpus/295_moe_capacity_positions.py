"""Token positions within their expert under a capacity limit (GShard / Switch Transformer top-1 dispatch
with token dropping, as fairseq's top1gating, Megatron-LM's and Tutel's capacity-factor routing compute
them): for the chosen expert of each token, expert_ids i32 [T] in [0, E), a token's position is the
number of earlier tokens (lower t) that chose the same expert. A token whose position is below the
runtime capacity C keeps slot[t] = expert * C + position (its row in the [E * C, D] dispatch buffer);
a dropped token gets slot[t] = -1. E is a runtime integer (the router's num_experts). T = 65536 tokens,
E = 64 experts, C = 1.25 * T / E = 1280. Peer: torch (one-hot, cumsum along the tokens) under
torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def moe_capacity_positions(expert_ids: T.In[T.i32, ("T",)], slot: T.Out[T.i32, ("T",)],
                           num_experts: T.i32, capacity: T.i32):
    NT = expert_ids.shape[0]
    toks = T.domain(0, NT)
    for e in T.parallel(T.domain(0, num_experts)):
        ei = T.cast(e, T.i32)
        mine = expert_ids[toks] == ei
        ones = T.where(mine, 1, 0, dtype=T.i32)
        position = T.cumsum(ones, exclusive=True)
        T.store(slot, (toks,), T.where(position < capacity, ei * capacity + position, -1), valid=mine)


KERNEL = moe_capacity_positions


def inputs(shape, rng):
    NT, E = shape["T"], _EXPERTS[shape["T"]] if shape["T"] in _EXPERTS else 64
    # skewed routing: a few hot experts overflow the capacity
    w = rng.random(E) ** 3 + 0.01
    ids = rng.choice(E, size=NT, p=w / w.sum())
    cap = max(1, int(1.25 * NT / E))
    return dict(expert_ids=ids.astype(np.int32), num_experts=E, capacity=cap)


def reference(expert_ids, num_experts, capacity):
    NT = expert_ids.shape[0]
    seen = {}
    slot = np.full(NT, -1, np.int32)
    for t in range(NT):
        e = int(expert_ids[t])
        pos = seen.get(e, 0)
        seen[e] = pos + 1
        if pos < capacity:
            slot[t] = e * capacity + pos
    return dict(slot=slot)


def peer(expert_ids, num_experts, capacity):
    import torch
    onehot = torch.nn.functional.one_hot(expert_ids.long(), num_experts)
    pos = (onehot.cumsum(0) - 1).gather(1, expert_ids.long()[:, None])[:, 0]
    slot = torch.where(pos < capacity, expert_ids.long() * capacity + pos, -1).to(torch.int32)
    return dict(slot=slot)


def OPS(shape):
    return 64 * shape["T"], 8 * shape["T"]


_EXPERTS = {0: 3, 1: 1, 37: 3, 1031: 13}               # experts at each test size (64 at the bench size)
TEST_SHAPES = [dict(T=1), dict(T=37), dict(T=0), dict(T=1031)]
BENCH_SHAPE = dict(T=65536)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch.compile"
