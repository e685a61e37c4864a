"""Temperature and nucleus (top-p) filtering for sampling: p = softmax(logits[b] / temperature); the
nucleus is the smallest set of the most probable tokens whose probabilities sum to at least top_p (a
token is kept when the tokens strictly more probable than it sum to less than top_p); out[b] holds the
kept tokens' probabilities renormalized to sum 1 and 0 elsewhere. Logits f32 [B, V], temperature and
top_p runtime f32 scalars. B64 V128256. Peer: torch (sort, cumsum, scatter, as HF's TopPLogitsWarper)."""
import numpy as np
import tessel
import tessel.language as T

ITERS = 40   # bisection steps on the probability threshold: the nucleus without a sort


@tessel.kernel
def top_p_renorm(logits: T.In[T.f32, ("B", "V")], out: T.Out[T.f32, ("B", "V")],
                 temperature: T.f32, top_p: T.f32):
    B, V = logits.shape
    vocab = T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        z = logits[b, vocab] / temperature
        e = T.exp(z - T.max(z))
        p = e / T.sum(e)
        # the largest threshold t whose tokens p >= t still hold top_p of the mass
        lo, hi = T.f32(0.0), T.f32(2.0)           # mass(p >= lo) >= top_p > mass(p >= hi)
        for it in T.domain(0, ITERS):
            mid = 0.5 * (lo + hi)
            enough = T.sum(T.where(p >= mid, p, 0.0)) >= top_p
            lo = T.where(enough, mid, lo)
            hi = T.where(enough, hi, mid)
        kept = T.where(p >= lo, p, 0.0)
        out[b, vocab] = kept / T.sum(kept)


KERNEL = top_p_renorm


def inputs(shape, rng):
    B, V = shape["B"], shape["V"]
    return dict(logits=(3.0 * rng.standard_normal((B, V))).astype(np.float32), temperature=0.7, top_p=0.9)


def reference(logits, temperature, top_p):
    z = logits.astype(np.float64) / np.float32(temperature)
    e = np.exp(z - z.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    out = np.zeros_like(p)
    for b in range(p.shape[0]):
        order = np.argsort(-p[b], kind="stable")
        before = np.cumsum(p[b, order]) - p[b, order]        # mass of the tokens ranked above
        keep = order[before < top_p]
        out[b, keep] = p[b, keep] / p[b, keep].sum()
    return dict(out=out)


def peer(logits, temperature, top_p):
    import torch
    p = torch.softmax(logits / temperature, dim=-1)
    sp, idx = p.sort(dim=-1, descending=True)
    keep_sorted = (sp.cumsum(-1) - sp) < top_p
    kept = torch.zeros_like(p).scatter(-1, idx, sp * keep_sorted)
    return dict(out=kept / kept.sum(-1, keepdim=True))


def OPS(shape):
    n = shape["B"] * shape["V"]
    return (ITERS + 8) * n, 8 * n


TEST_SHAPES = [dict(B=1, V=1), dict(B=3, V=127), dict(B=5, V=1031)]
BENCH_SHAPE = dict(B=64, V=128256)
TOLERANCE = dict(rtol=1e-5, atol=1e-7)
PEER = "torch"
