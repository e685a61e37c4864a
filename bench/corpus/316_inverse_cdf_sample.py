"""Categorical sampling of the next token by inverse CDF with per-request temperature (FlashInfer's
sampling_from_probs / vLLM's sampler with a given uniform draw, what serving runs after the logits
processors): for request b, p = softmax(logits[b, :] / temperature[b]) over the vocabulary (logits f32
[B, V], temperature f32 [B] > 0) and, with one uniform draw u[b] in [0, 1) (f32 [B]), token[b] is the first
vocabulary id whose running sum of p exceeds u[b], i.e. the number of ids whose running sum is at most u[b]
(clamped to V - 1 against rounding), i32 [B]. B256 V128256. Peer: torch.compile of softmax, cumsum and
searchsorted(right=True)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def inverse_cdf_sample(logits: T.In[T.f32, ("B", "V")], temperature: T.In[T.f32, ("B",)],
                       u: T.In[T.f32, ("B",)], token: T.Out[T.i32, ("B",)]):
    B, V = logits.shape
    vocab = T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        z = logits[b, vocab] / temperature[b]
        e = T.exp(z - T.max(z))
        cdf = T.cumsum(e)
        below = T.sum(T.where(cdf <= u[b] * T.sum(e), 1, 0, dtype=T.i32))
        token[b] = T.minimum(below, T.cast(V, T.i32) - 1)


KERNEL = inverse_cdf_sample


def inputs(shape, rng):
    B, V = shape["B"], shape["V"]
    return dict(logits=(rng.standard_normal((B, V)) * 2.0).astype(np.float32),
                temperature=(rng.random(B) * 1.5 + 0.3).astype(np.float32),
                u=rng.random(B).astype(np.float32))


def reference(logits, temperature, u):
    z = logits.astype(np.float64) / temperature[:, None]
    e = np.exp(z - z.max(1, keepdims=True))
    cdf = np.cumsum(e, axis=1)
    below = (cdf <= u[:, None] * e.sum(1, keepdims=True)).sum(1)
    return dict(token=np.minimum(below, logits.shape[1] - 1).astype(np.int32))


def peer(logits, temperature, u):
    import torch
    p = torch.softmax(logits / temperature[:, None], dim=-1)
    cdf = torch.cumsum(p, dim=-1)
    tok = torch.searchsorted(cdf, u[:, None], right=True)[:, 0]
    return dict(token=tok.clamp(max=logits.shape[1] - 1).to(torch.int32))


def OPS(shape):
    n = shape["B"] * shape["V"]
    return 6 * n, 4 * n


TEST_SHAPES = [dict(B=1, V=1), dict(B=3, V=37), dict(B=5, V=1031)]
BENCH_SHAPE = dict(B=256, V=128256)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"
