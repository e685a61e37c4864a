"""Greedy verification of speculative-decoding drafts (vLLM's rejection sampler with temperature 0, the
EAGLE / Medusa / n-gram verifiers): for each sequence b the draft proposed K tokens draft[b, :] (i32), and
the target model scored K + 1 positions, logits f32 [B, K + 1, V] (position j predicts the token after the
j-th draft token; the last is the bonus position). With a[j] = argmax over the vocabulary of logits[b, j]
(the lowest id on ties), the accepted count n[b] is the number of leading positions j < K where draft[b, j]
== a[j]; the emitted tokens are a[0] .. a[n[b]] (the accepted drafts, then the target's correction or the
bonus token), written to tokens[b, 0 .. n[b]] and -1 after them (i32 [B, K + 1]), and num_accepted[b] =
n[b] (i32). B64 K4 V128256 (Llama 3's vocabulary). Peer: torch (argmax, cumprod of the matches)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def spec_greedy_verify(logits: T.In[T.f32, ("B", "K1", "V")], draft: T.In[T.i32, ("B", "K")],
                       tokens: T.Out[T.i32, ("B", "K1")], num_accepted: T.Out[T.i32, ("B",)]):
    B, K1, V = logits.shape
    K = draft.shape[1]
    steps, vocab = T.domain(0, K1), T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        _, best = T.argmax(logits[b, steps, vocab], axis=1)              # [K + 1] token ids
        best = T.cast(best, T.i32)
        j = T.indices(steps)
        proposed = T.load(draft, (b, steps), valid=j < K, fill=-1)        # the bonus position has no draft
        first_miss = T.min(T.where(proposed != best, j, K1))             # the bonus position always misses
        tokens[b, steps] = T.where(j <= first_miss, best, -1)
        num_accepted[b] = T.cast(first_miss, T.i32)


KERNEL = spec_greedy_verify


def inputs(shape, rng):
    B, K, K1, V = shape["B"], shape["K"], shape["K1"], shape["V"]
    assert K1 == K + 1
    logits = rng.standard_normal((B, K1, V)).astype(np.float32)
    am = logits.argmax(axis=2)
    draft = rng.integers(0, V, size=(B, K))
    # accept a random prefix of each row's drafts (the target's argmax), then propose a token at random
    for b in range(B):
        n = rng.integers(0, K + 1)
        draft[b, :n] = am[b, :n]
    if B > 1 and K > 0:
        draft[0] = am[0, :K]                 # everything accepted: the bonus token is emitted
    if B > 2 and V > 1 and K > 1:
        logits[2, 0, 0] = logits[2, 0, 1] = logits[2, 0].max() + 1.0   # a tie: the lower id wins
        draft[2, 0] = 0
    return dict(logits=logits, draft=draft.astype(np.int32))


def reference(logits, draft):
    B, K1, V = logits.shape
    K = draft.shape[1]
    am = logits.argmax(axis=2)
    tokens = np.full((B, K1), -1, np.int32)
    n = np.zeros(B, np.int32)
    for b in range(B):
        j = 0
        while j < K and draft[b, j] == am[b, j]:
            j += 1
        n[b] = j
        tokens[b, :j + 1] = am[b, :j + 1]
    return dict(tokens=tokens, num_accepted=n)


def peer(logits, draft):
    import torch
    B, K1, V = logits.shape
    K = draft.shape[1]
    am = logits.argmax(dim=2).to(torch.int32)
    match = (draft == am[:, :K]).to(torch.int32)
    n = match.cumprod(dim=1).sum(dim=1)
    j = torch.arange(K1, device=logits.device)[None, :]
    return dict(tokens=torch.where(j <= n[:, None], am, -1).to(torch.int32), num_accepted=n.to(torch.int32))


def OPS(shape):
    n = shape["B"] * shape["K1"] * shape["V"]
    return n, 4 * n


TEST_SHAPES = [dict(B=1, K=0, K1=1, V=1), dict(B=3, K=2, K1=3, V=5), dict(B=7, K=4, K1=5, V=1031)]
BENCH_SHAPE = dict(B=64, K=4, K1=5, V=128256)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch.compile"
