"""Softmax over the last axis of a 4-D attention-score tensor with a causal mask applied by position (scores f32 [B, H, S, S], out f16), then the probabilities' row entropy as a second output f32 [B, H, S]. B2 H16 S2048. Peer: torch.compile."""
import math

import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def causal_softmax_entropy(scores: T.In[T.f32, ("B", "H", "S", "S")], probs: T.Out[T.f16, ("B", "H", "S", "S")],
                           entropy: T.Out[T.f32, ("B", "H", "S")]):
    B, H, S, _ = scores.shape
    keys = T.domain(0, S)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        visible = kpos <= i
        s = T.where(visible, scores[b, h, i, keys], -math.inf)
        mx = T.max(s)
        e = T.exp(s - mx)
        den = T.sum(e)
        p = e / den
        probs[b, h, i, keys] = T.cast(p, T.f16)
        logp = (s - mx) - T.log(den)
        entropy[b, h, i] = -T.sum(T.where(visible, p * logp, 0.0))


KERNEL = causal_softmax_entropy


def inputs(shape, rng):
    B, H, S = shape["B"], shape["H"], shape["S"]
    return dict(scores=(rng.standard_normal((B, H, S, S)) * 3.0).astype(np.float32))


def reference(scores):
    s = scores.astype(np.float64)
    S = s.shape[-1]
    mask = np.tril(np.ones((S, S), dtype=bool))
    s = np.where(mask, s, -np.inf)
    mx = s.max(-1, keepdims=True)
    e = np.exp(s - mx)
    den = e.sum(-1, keepdims=True)
    p = e / den
    logp = np.where(mask, (s - mx) - np.log(den), 0.0)
    ent = -(p * logp).sum(-1)
    return dict(probs=p.astype(np.float16), entropy=ent.astype(np.float32))


def peer(scores):
    S = scores.shape[-1]
    mask = torch.ones(S, S, dtype=torch.bool, device=scores.device).tril()
    s = scores.masked_fill(~mask, float("-inf"))
    p = torch.softmax(s, dim=-1)
    logp = torch.log_softmax(s, dim=-1)
    ent = -torch.where(mask, p * logp, torch.zeros_like(p)).sum(-1)
    return dict(probs=p.half(), entropy=ent)


TEST_SHAPES = [dict(B=1, H=1, S=1), dict(B=1, H=3, S=7), dict(B=2, H=2, S=131)]
BENCH_SHAPE = dict(B=2, H=16, S=2048)
TOLERANCE = dict(rtol=2e-3, atol=1e-3)
PEER = "torch.compile"
