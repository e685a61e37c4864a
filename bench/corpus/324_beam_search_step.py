"""One step of beam search (Hugging Face generate's beam search, num_beams K = 4): for the next-token logits
f32 [B, K, V] of each batch entry's K beams and the beams' running scores beam_scores f32 [B, K], every
candidate (beam k, token v) scores log_softmax(logits[b, k])[v] + beam_scores[b, k]; outputs the 2K best
candidates over all K * V of them, in descending order of score (the lowest k * V + v first on ties):
next_scores f32 [B, 2K], next_tokens i32 [B, 2K] (v) and next_beams i32 [B, 2K] (k). B16 V128256 (Llama 3's
vocabulary). Peer: torch.compile of what generate runs (log_softmax, add, view(B, K * V), topk(2K))."""
import math

import numpy as np
import tessel
import tessel.language as T

K = 4


@tessel.kernel
def beam_search_step(logits: T.In[T.f32, ("B", K, "V")], beam_scores: T.In[T.f32, ("B", K)],
                     next_scores: T.Out[T.f32, ("B", 2 * K)], next_tokens: T.Out[T.i32, ("B", 2 * K)],
                     next_beams: T.Out[T.i32, ("B", 2 * K)]):
    B, _, V = logits.shape
    beams, vocab = T.domain(0, K), T.domain(0, V)
    cands = T.domain(0, K * V)
    for b in T.parallel(T.domain(0, B)):
        x = logits[b, beams, vocab]
        mx = T.max(x, axis=1)
        lse = mx + T.log(T.sum(T.exp(x - mx), axis=1))
        scores = T.reshape(x - lse + beam_scores[b, beams], over=(cands,))
        for j in range(2 * K):
            best, at = T.argmax(scores)
            next_scores[b, j] = best
            next_tokens[b, j] = T.cast(at % V, T.i32)
            next_beams[b, j] = T.cast(at // V, T.i32)
            scores = T.where(T.indices(cands) == at, -math.inf, scores)


KERNEL = beam_search_step


def inputs(shape, rng):
    B, V = shape["B"], shape["V"]
    return dict(logits=(rng.standard_normal((B, K, V)) * 3.0).astype(np.float32),
                beam_scores=(-rng.random((B, K)) * 5.0).astype(np.float32))


def reference(logits, beam_scores):
    B, _, V = logits.shape
    x = logits.astype(np.float64)
    mx = x.max(-1, keepdims=True)
    lp = x - mx - np.log(np.exp(x - mx).sum(-1, keepdims=True)) + beam_scores[..., None]
    flat = lp.reshape(B, K * V)
    order = np.argsort(-flat, axis=1, kind="stable")[:, :2 * K]
    return dict(next_scores=np.take_along_axis(flat, order, 1), next_tokens=(order % V).astype(np.int32),
                next_beams=(order // V).astype(np.int32))


def peer(logits, beam_scores):
    import torch
    B, _, V = logits.shape
    lp = torch.log_softmax(logits, dim=-1) + beam_scores[..., None]
    s, i = torch.topk(lp.view(B, K * V), 2 * K, dim=1, largest=True, sorted=True)
    return dict(next_scores=s, next_tokens=(i % V).int(), next_beams=torch.div(i, V, rounding_mode="floor").int())


def OPS(shape):
    n = shape["B"] * K * shape["V"]
    return (6 + 2 * K) * n, 4 * n


TEST_SHAPES = [dict(B=1, V=2), dict(B=2, V=37), dict(B=3, V=257),
               dict(B=0, V=5)]
BENCH_SHAPE = dict(B=16, V=128256)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"
SKIP = {"triton": "runs for minutes under TRITON_INTERPRET=1 (124 s at B=2 V=37): the argmax over the reshaped "
        "[K * V] candidates walks them one at a time and recomputes each candidate's beam logsumexp (two walks "
        "of V) per candidate, quadratic in V, once per pick"}
