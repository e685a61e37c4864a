"""OpenAI-style frequency and presence penalties on next-token logits (vLLM's apply_penalties): for each
sequence b, count[v] is how many times token v occurs among the tokens generated so far, out_tokens[b, :]
(int32 [B, L], padded with -1); logits[b, v] -= freq[b] * count[v] + pres[b] * (count[v] > 0), in place.
Logits f32 [B, V], per-sequence penalties f32 [B]. B256 L1024 V128256. Peer: torch (scatter_add of ones
into a [B, V + 1] count table, as vLLM's get_token_bin_counts_and_mask)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def frequency_presence_penalty(logits: T.InOut[T.f32, ("B", "V")], out_tokens: T.In[T.i32, ("B", "L")],
                               freq: T.In[T.f32, ("B",)], pres: T.In[T.f32, ("B",)]):
    B, V = logits.shape
    L = out_tokens.shape[1]
    vocab, gen = T.domain(0, V), T.domain(0, L)
    for b in T.parallel(T.domain(0, B)):
        toks = out_tokens[b, gen]
        count = T.histogram(toks, vocab, valid=(toks >= 0) & (toks < T.cast(V, T.i32)))
        seen = T.where(count > 0, 1.0, 0.0, dtype=T.f32)
        logits[b, vocab] = logits[b, vocab] - freq[b] * T.cast(count, T.f32) - pres[b] * seen


KERNEL = frequency_presence_penalty


def inputs(shape, rng):
    B, V, L = shape["B"], shape["V"], shape["L"]
    toks = rng.integers(0, max(V // 4, 1), (B, L)).astype(np.int32)      # repeats are common
    lens = rng.integers(0, L + 1, B)
    toks[np.arange(L)[None, :] >= lens[:, None]] = -1
    return dict(logits=(3.0 * rng.standard_normal((B, V))).astype(np.float32), out_tokens=toks,
                freq=rng.random(B).astype(np.float32), pres=rng.random(B).astype(np.float32))


def reference(logits, out_tokens, freq, pres):
    B, V = logits.shape
    count = np.zeros((B, V), np.float32)
    for b in range(B):
        t = out_tokens[b][out_tokens[b] >= 0]
        count[b] = np.bincount(t, minlength=V)[:V]
    return dict(logits=logits - freq[:, None] * count - pres[:, None] * (count > 0))


def peer(logits, out_tokens, freq, pres):
    import torch
    B, V = logits.shape
    idx = torch.where(out_tokens < 0, V, out_tokens).long()
    count = torch.zeros(B, V + 1, device=logits.device).scatter_add_(1, idx, torch.ones_like(idx, dtype=torch.float))[:, :V]
    logits -= freq[:, None] * count + pres[:, None] * (count > 0).float()
    return dict(logits=logits)


def OPS(shape):
    B, V, L = shape["B"], shape["V"], shape["L"]
    return 4 * B * V, 8 * B * V + 4 * B * L


TEST_SHAPES = [dict(B=1, V=1, L=1), dict(B=2, V=61, L=7), dict(B=2, V=263, L=17)]
BENCH_SHAPE = dict(B=256, V=128256, L=1024)
TOLERANCE = dict(rtol=1e-6, atol=1e-6)
PEER = "torch"
