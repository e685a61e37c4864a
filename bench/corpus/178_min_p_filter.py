"""Min-p sampling filter: for logits [B, V] f32 and a temperature t, p = softmax(logits / t); keep the
tokens with p >= min_p * max(p), zero the rest and renormalize the kept ones to sum 1; out [B, V] f32.
B=128 V=128256. Peer: torch.compile (softmax, mask against min_p * max, renormalize)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def min_p_filter(logits: T.In[T.f32, ("B", "V")], out: T.Out[T.f32, ("B", "V")],
                 temperature: T.f32, min_p: T.f32):
    B, V = logits.shape
    vocab = T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        z = logits[b, vocab] / temperature
        e = T.exp(z - T.max(z))
        p = e / T.sum(e)
        kept = T.where(p >= min_p * T.max(p), p, 0.0)
        out[b, vocab] = kept / T.sum(kept)


KERNEL = min_p_filter
CONSTEXPRS = {}


def inputs(shape, rng):
    B, V = shape["B"], shape["V"]
    return dict(logits=(3.0 * rng.standard_normal((B, V))).astype(np.float32),
                temperature=0.7, min_p=0.05)


def reference(logits, temperature, min_p):
    z = logits.astype(np.float64) / temperature
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    kept = np.where(p >= min_p * p.max(axis=1, keepdims=True), p, 0.0)
    return dict(out=kept / kept.sum(axis=1, keepdims=True))


def peer(logits, temperature, min_p):
    import torch
    p = torch.softmax(logits / temperature, dim=-1)
    kept = torch.where(p >= min_p * p.amax(dim=-1, keepdim=True), p, torch.zeros_like(p))
    return dict(out=kept / kept.sum(dim=-1, keepdim=True))


TEST_SHAPES = [dict(B=1, V=1), dict(B=3, V=127), dict(B=17, V=1031), dict(B=5, V=4099)]
BENCH_SHAPE = dict(B=128, V=128256)
TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    B, V = shape["B"], shape["V"]
    return 8 * B * V, 2 * 4 * B * V
