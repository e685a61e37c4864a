"""Per-request logit bias (the OpenAI API's logit_bias, as vLLM's LogitBiasLogitsProcessor applies it in
place before sampling): request b gives up to K (token id, bias) pairs, bias_ids i32 [B, K] (distinct ids
per request, padded with -1) and bias_vals f32 [B, K], and logits[b, bias_ids[b, k]] += bias_vals[b, k] for
every real pair, in place (logits f32 [B, V]); every other logit is untouched. B256 V128256 K300 (the API's
limit). Peer: torch (index_put_ with accumulate=True over the real pairs)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def logit_bias_scatter(logits: T.InOut[T.f32, ("B", "V")], bias_ids: T.In[T.i32, ("B", "K")],
                       bias_vals: T.In[T.f32, ("B", "K")]):
    B, V = logits.shape
    K = bias_ids.shape[1]
    pairs = T.domain(0, K)
    for b in T.parallel(T.domain(0, B)):
        ids = bias_ids[b, pairs]
        real = ids >= 0
        cur = T.load(logits, (b, ids), valid=real, fill=0.0)
        T.store(logits, (b, ids), cur + bias_vals[b, pairs], valid=real)


KERNEL = logit_bias_scatter


def inputs(shape, rng):
    B, V, K = shape["B"], shape["V"], shape["K"]
    ids = np.full((B, K), -1, dtype=np.int32)
    for b in range(B):
        n = int(rng.integers(0, min(K, V) + 1))
        ids[b, :n] = rng.choice(V, n, replace=False)
        rng.shuffle(ids[b])                                  # padding anywhere
    return dict(logits=(rng.standard_normal((B, V)) * 3.0).astype(np.float32), bias_ids=ids,
                bias_vals=rng.uniform(-100.0, 100.0, (B, K)).astype(np.float32))


def reference(logits, bias_ids, bias_vals):
    out = logits.copy()
    for b in range(logits.shape[0]):
        real = bias_ids[b] >= 0
        out[b, bias_ids[b, real]] += bias_vals[b, real]
    return dict(logits=out)


def peer(logits, bias_ids, bias_vals):
    import torch
    real = bias_ids >= 0
    rows = torch.arange(logits.shape[0], device=logits.device)[:, None].expand_as(bias_ids)[real]
    out = logits.clone()
    out.index_put_((rows, bias_ids[real].long()), bias_vals[real], accumulate=True)
    return dict(logits=out)


def OPS(shape):
    n = shape["B"] * shape["K"]
    return n, 16 * n


TEST_SHAPES = [dict(B=1, V=1, K=1), dict(B=3, V=37, K=5), dict(B=7, V=1031, K=61)]
BENCH_SHAPE = dict(B=256, V=128256, K=300)
TOLERANCE = dict(rtol=1e-6, atol=1e-6)
PEER = "torch"
