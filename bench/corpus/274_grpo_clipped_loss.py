"""GRPO / PPO policy loss over a batch of sampled completions (TRL's GRPOTrainer, sequence-mean loss):
per token, ratio = exp(logp - old_logp), the clipped surrogate pg = -min(ratio * A_b,
clip(ratio, 1 - eps_low, 1 + eps_high) * A_b) with the completion's advantage A_b, the k3 estimator of
the KL to the reference policy kl = exp(ref_logp - logp) - (ref_logp - logp) - 1, and tok = pg + beta * kl;
each completion's loss is the mean of tok over its unmasked tokens (mask[b, t], at least one token
counted), loss[0] is the mean over completions, and clip_frac[0] the fraction of unmasked tokens whose
ratio was clipped (outside [1 - eps_low, 1 + eps_high]). logp, old_logp, ref_logp f32 [B, L], advantages
f32 [B], mask bool [B, L]. B=512 completions, L=4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def grpo_clipped_loss(logp: T.In[T.f32, ("B", "L")], old_logp: T.In[T.f32, ("B", "L")],
                      ref_logp: T.In[T.f32, ("B", "L")], advantages: T.In[T.f32, ("B",)],
                      mask: T.In[T.bool_, ("B", "L")], loss: T.Out[T.f32, (1,)], clip_frac: T.Out[T.f32, (1,)],
                      eps_low: T.f32, eps_high: T.f32, beta: T.f32):
    B, L = logp.shape
    seqs, toks = T.domain(0, B), T.domain(0, L)
    lp = logp[seqs, toks]
    ratio = T.exp(lp - old_logp[seqs, toks])
    adv = advantages[seqs]
    clipped = T.minimum(T.maximum(ratio, 1.0 - eps_low), 1.0 + eps_high)
    pg = -T.minimum(ratio * adv, clipped * adv)
    d = ref_logp[seqs, toks] - lp
    kl = T.exp(d) - d - 1.0
    m = T.where(mask[seqs, toks], 1.0, 0.0, dtype=T.f32)
    count = T.sum(m, axis=1)
    per_seq = T.sum((pg + beta * kl) * m, axis=1) / T.maximum(count, 1.0)
    loss[0] = T.sum(per_seq) / T.cast(B, T.f32)
    was_clipped = T.where((ratio < 1.0 - eps_low) | (ratio > 1.0 + eps_high), 1.0, 0.0, dtype=T.f32)
    clip_frac[0] = T.sum(was_clipped * m) / T.maximum(T.sum(count), 1.0)


KERNEL = grpo_clipped_loss


def inputs(shape, rng):
    B, L = shape["B"], shape["L"]
    old = (-2.0 + 0.5 * rng.standard_normal((B, L))).astype(np.float32)
    lengths = rng.integers(1, L + 1, size=B)
    mask = np.arange(L)[None, :] < lengths[:, None]            # right-padded completions
    return dict(logp=(old + 0.2 * rng.standard_normal((B, L))).astype(np.float32), old_logp=old,
                ref_logp=(old + 0.1 * rng.standard_normal((B, L))).astype(np.float32),
                advantages=rng.standard_normal(B).astype(np.float32), mask=mask,
                eps_low=0.2, eps_high=0.28, beta=0.04)


def reference(logp, old_logp, ref_logp, advantages, mask, eps_low, eps_high, beta):
    lp = logp.astype(np.float64)
    ratio = np.exp(lp - old_logp)
    adv = advantages.astype(np.float64)[:, None]
    lo, hi = 1.0 - np.float32(eps_low), 1.0 + np.float32(eps_high)
    pg = -np.minimum(ratio * adv, np.clip(ratio, lo, hi) * adv)
    d = ref_logp - lp
    tok = pg + np.float32(beta) * (np.exp(d) - d - 1.0)
    m = mask.astype(np.float64)
    count = m.sum(axis=1)
    per_seq = (tok * m).sum(axis=1) / np.maximum(count, 1.0)
    frac = (((ratio < lo) | (ratio > hi)) * m).sum() / max(count.sum(), 1.0)
    return dict(loss=np.array([per_seq.mean()]), clip_frac=np.array([frac]))


def peer(logp, old_logp, ref_logp, advantages, mask, eps_low, eps_high, beta):
    import torch
    ratio = torch.exp(logp - old_logp)
    adv = advantages[:, None]
    pg = -torch.min(ratio * adv, torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * adv)
    d = ref_logp - logp
    tok = pg + beta * (torch.exp(d) - d - 1)
    m = mask.float()
    count = m.sum(dim=1)
    loss = ((tok * m).sum(dim=1) / count.clamp(min=1.0)).mean()
    clipped = ((ratio < 1 - eps_low) | (ratio > 1 + eps_high)).float()
    frac = (clipped * m).sum() / count.sum().clamp(min=1.0)
    return dict(loss=loss.reshape(1), clip_frac=frac.reshape(1))


def OPS(shape):
    n = shape["B"] * shape["L"]
    return 20 * n, 13 * n


TEST_SHAPES = [dict(B=1, L=1), dict(B=3, L=37), dict(B=11, L=257)]
BENCH_SHAPE = dict(B=512, L=4096)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"
