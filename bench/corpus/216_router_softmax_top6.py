"""MoE router: softmax over E=64 expert logits [T, E] f32 per token, pick the 6 largest probabilities,
renormalize them to sum 1; outputs weights [T, 6] f32 and expert ids [T, 6] int32, in descending order
of probability, the lowest id first on ties. T=65536. Peer: torch.compile of softmax + topk + divide
(DeepSeek-style routing with norm_topk_prob)."""
import math

import numpy as np
import tessel
import tessel.language as T

TOPK = 6


@tessel.kernel
def router_softmax_top6(logits: T.In[T.f32, ("T", "E")], weights: T.Out[T.f32, ("T", 6)],
                        ids: T.Out[T.i32, ("T", 6)]):
    Tn, E = logits.shape
    experts = T.domain(0, E)
    pos = T.indices(experts)
    for t in T.parallel(T.domain(0, Tn)):
        row = logits[t, experts]
        e = T.exp(row - T.max(row))
        p = e / T.sum(e)
        vals, idxs = [], []
        for k in range(TOPK):                             # unrolled at trace time
            v, i = T.argmax(p)                            # tie="lowest": the lowest id first
            vals.append(v)
            idxs.append(i)
            p = T.where(pos == i, -math.inf, p)           # take it out of the next rounds
        total = vals[0]
        for k in range(1, TOPK):
            total = total + vals[k]
        for k in range(TOPK):
            weights[t, k] = vals[k] / total
            ids[t, k] = T.cast(idxs[k], T.i32)


KERNEL = router_softmax_top6
CONSTEXPRS = {}


def inputs(shape, rng):
    Tn, E = shape["T"], shape["E"]
    logits = rng.standard_normal((Tn, E)).astype(np.float32)
    if Tn < 1000:
        # plant exact ties in the test shapes (torch.topk promises no order among equal values, so the
        # bench shape has none): a row's largest logit copied to a higher id, and to a lower one
        for t in range(0, Tn, 2):
            j = int(np.argmax(logits[t]))
            logits[t, (j + 1 + t) % E] = logits[t, j]
            logits[t, (j + 3) % E] = np.partition(logits[t], -3)[-3]
    return dict(logits=logits)


def reference(logits):
    lg = logits.astype(np.float64)
    p = np.exp(lg - lg.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    # equal logits give equal probabilities (bit for bit in f32 too): order by (-logit, id), stably
    order = np.argsort(-logits, axis=1, kind="stable")[:, :TOPK]
    top = np.take_along_axis(p, order, axis=1)
    return dict(weights=top / top.sum(axis=1, keepdims=True), ids=order.astype(np.int32))


def peer(logits):
    import torch
    p = torch.softmax(logits, dim=-1)
    w, i = torch.topk(p, TOPK, dim=-1)
    return dict(weights=w / w.sum(dim=-1, keepdim=True), ids=i.to(torch.int32))


TEST_SHAPES = [dict(T=1, E=6), dict(T=5, E=7), dict(T=37, E=64), dict(T=11, E=131)]
BENCH_SHAPE = dict(T=65536, E=64)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    Tn, E = shape["T"], shape["E"]
    return 5 * Tn * E + 2 * TOPK * Tn * E, 4 * Tn * E + 8 * Tn * TOPK
