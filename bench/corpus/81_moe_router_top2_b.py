"""MoE top-2 routing. For every token t of logits [T, E] (f32): p = softmax(logits[t]); the two experts
with the largest p, in descending order (ties: lower index first), as idx [T, 2] (i32), and their p
renormalized to sum to one as weights [T, 2] (f32). Second spelling: one T.reduce whose summary is the
running top two (value, index, value, index), instead of two argmax passes.
"""
import math

import numpy as np

import tessel
import tessel.language as T

NONE = 1 << 30   # the index of an empty slot: loses every tie


@tessel.fn
def first(a, i, b, j):           # does (a, i) rank before (b, j)? larger value, then lower index
    return (a > b) | ((a == b) & (i < j))


@tessel.fn
def top2(a1, ai1, a2, ai2, b1, bi1, b2, bi2):
    a_wins = first(a1, ai1, b1, bi1)
    v1 = T.where(a_wins, a1, b1)
    i1 = T.where(a_wins, ai1, bi1)
    # the runner-up: the loser of the two leaders, or the winner's own second
    c, ci = T.where(a_wins, b1, a1), T.where(a_wins, bi1, ai1)
    d, di = T.where(a_wins, a2, b2), T.where(a_wins, ai2, bi2)
    c_wins = first(c, ci, d, di)
    return v1, i1, T.where(c_wins, c, d), T.where(c_wins, ci, di)


@tessel.kernel
def moe_router_top2(logits: T.In[T.f32, ("T", "E")], idx: T.Out[T.i32, ("T", 2)],
                    weights: T.Out[T.f32, ("T", 2)]):
    nt, ne = logits.shape
    experts = T.domain(0, ne)
    pos = T.indices(experts)
    for t in T.parallel(T.domain(0, nt)):
        row = logits[t, experts]
        e = T.exp(row - T.max(row))
        p = e / T.sum(e)
        p1, i1, p2, i2 = T.reduce((p, pos, T.full_like(p, -math.inf), T.full_like(pos, NONE)), axis=0,
                                  identity=(-math.inf, NONE, -math.inf, NONE), combine=top2)
        idx[t, 0] = T.cast(i1, T.i32)
        idx[t, 1] = T.cast(i2, T.i32)
        total = p1 + p2
        weights[t, 0] = p1 / total
        weights[t, 1] = p2 / total


KERNEL = moe_router_top2


def inputs(shape, rng):
    logits = 2.0 * rng.standard_normal((shape["T"], shape["E"])).astype(np.float32)
    # exact ties (lower index first) at the test shapes only: torch.topk, the peer, does not promise an
    # order among equal values, and the bench compares the peer with the kernel
    if 2 < shape["T"] < 1000 and shape["E"] > 3:
        logits[1, 3] = logits[1, 1] = logits[1].max() + 1.0
        logits[2, 2] = logits[2, 0] = logits[2].max() + 1.0
        logits[2, 1] = logits[2, 0] + 0.5
    return {"logits": logits}


def reference(logits):
    x = logits.astype(np.float64)
    p = np.exp(x - x.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    order = np.argsort(-p, axis=1, kind="stable")[:, :2]
    top = np.take_along_axis(p, order, axis=1)
    return {"idx": order.astype(np.int32), "weights": top / top.sum(axis=1, keepdims=True)}


def peer(logits):
    import torch
    p = torch.softmax(logits, dim=-1)
    w, i = torch.topk(p, 2, dim=-1)
    return {"idx": i.to(torch.int32), "weights": w / w.sum(dim=-1, keepdim=True)}


TEST_SHAPES = [dict(T=1, E=2), dict(T=3, E=7), dict(T=37, E=64), dict(T=5, E=131)]
BENCH_SHAPE = dict(T=65536, E=64)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    nt, ne = shape["T"], shape["E"]
    return 6 * nt * ne, 4 * nt * ne + 16 * nt
