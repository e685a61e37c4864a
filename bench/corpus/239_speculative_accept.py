"""Speculative decoding acceptance (rejection sampling, Leviathan et al. 2023, as vLLM's rejection sampler
does it): for each sequence b, the draft model proposed K tokens draft[b, k] with probability rows
p_draft[b, k, :] and the target model scored them with p_target[b, k, :]; draft k is accepted when
u[b, k] * p_draft[b, k, draft[b, k]] < p_target[b, k, draft[b, k]] (u uniform in [0, 1)). n_accepted[b] is
the number of leading accepted drafts (the first rejected position j, or K if none is rejected), and
recovered[b, :] is the distribution the replacement token is sampled from at j: max(0, p_target[b, j] -
p_draft[b, j]) normalized to sum 1 (all zeros when every draft is accepted, or where that difference is
all zero). f32 probabilities, int32 tokens. B64 K4 V128256. Peer: torch (vLLM's rejection sampler)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def speculative_accept(draft: T.In[T.i32, ("B", "K"), T.Range(0, "V")], u: T.In[T.f32, ("B", "K")],
                       p_draft: T.In[T.f32, ("B", "K", "V")], p_target: T.In[T.f32, ("B", "K", "V")],
                       n_accepted: T.Out[T.i32, ("B",)], recovered: T.Out[T.f32, ("B", "V")]):
    B, K, V = p_draft.shape
    drafts, vocab = T.domain(0, K), T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        tok = draft[b, drafts]
        pt = p_target[b, drafts, tok]                 # the drafted token's probability, per position
        pd = p_draft[b, drafts, tok]
        rejected = u[b, drafts] * pd >= pt
        first = T.min(T.where(rejected, T.indices(drafts), K))   # first rejected position, K if none
        n_accepted[b] = T.cast(first, T.i32)
        j = T.minimum(first, K - 1)
        r = T.maximum(p_target[b, j, vocab] - p_draft[b, j, vocab], 0.0)
        s = T.sum(r)
        recovered[b, vocab] = T.where((first < K) & (s > 0.0), r / s, 0.0)


KERNEL = speculative_accept


def _probs(rng, shape):
    z = 2.0 * rng.standard_normal(shape)
    e = np.exp(z - z.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)


def inputs(shape, rng):
    B, K, V = shape["B"], shape["K"], shape["V"]
    pd = _probs(rng, (B, K, V))
    # the target mostly agrees with the draft: a mix of rejections and full acceptances
    pt = _probs(rng, (B, K, V))
    pt = (0.7 * pd + 0.3 * pt).astype(np.float32)
    draft = np.array([[rng.choice(V, p=(lambda w: w / w.sum())(pd[b, k].astype(np.float64))) for k in range(K)]
                      for b in range(B)], dtype=np.int32).reshape(B, K)
    return dict(draft=draft, u=rng.random((B, K)).astype(np.float32), p_draft=pd, p_target=pt)


def reference(draft, u, p_draft, p_target):
    B, K, V = p_draft.shape
    n = np.full(B, K, dtype=np.int32)
    rec = np.zeros((B, V), dtype=np.float64)
    for b in range(B):
        for k in range(K):
            t = draft[b, k]
            if not np.float32(u[b, k]) * p_draft[b, k, t] < p_target[b, k, t]:
                n[b] = k
                break
        if n[b] < K:
            r = np.maximum(p_target[b, n[b]].astype(np.float64) - p_draft[b, n[b]], 0.0)
            if r.sum() > 0:
                rec[b] = r / r.sum()
    return dict(n_accepted=n, recovered=rec)


def peer(draft, u, p_draft, p_target):
    import torch
    B, K, V = p_draft.shape
    idx = draft.long()[..., None]
    pd, pt = p_draft.gather(2, idx)[..., 0], p_target.gather(2, idx)[..., 0]
    pos = torch.arange(K, device=draft.device).expand(B, K)
    first = torch.where(u * pd >= pt, pos, K).min(1).values
    j = first.clamp(max=K - 1)
    rows = torch.arange(B, device=draft.device)
    r = (p_target[rows, j] - p_draft[rows, j]).clamp_min(0.0)
    s = r.sum(-1, keepdim=True)
    ok = (first < K)[:, None] & (s > 0)
    return dict(n_accepted=first.to(torch.int32), recovered=torch.where(ok, r / s, torch.zeros_like(r)))


def OPS(shape):
    B, K, V = shape["B"], shape["K"], shape["V"]
    return 4 * B * V, 4 * (2 * B * V + 4 * B * K) + 4 * B * V   # the rejected row of each, and the result


TEST_SHAPES = [dict(B=1, K=1, V=1), dict(B=3, K=5, V=127), dict(B=7, K=4, V=1031)]
BENCH_SHAPE = dict(B=64, K=4, V=128256)
TOLERANCE = dict(rtol=1e-5, atol=1e-7)
PEER = "torch"
