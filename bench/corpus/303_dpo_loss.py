"""Direct Preference Optimization loss (Rafailov et al. 2023, TRL's DPOTrainer with the sigmoid loss) from
the per-token log-probabilities of the labels: for each preference pair b, the policy and the frozen
reference model scored the chosen and the rejected completion, policy_chosen, policy_rejected,
ref_chosen, ref_rejected f32 [B, L] (padded), and chosen_mask, rejected_mask bool [B, L] mark the
completion tokens (prompt and padding are False). Each sequence's log-probability is the sum of its
masked tokens; chosen_rewards[b] = beta * (policy_chosen_seq - ref_chosen_seq), rejected_rewards[b] =
beta * (policy_rejected_seq - ref_rejected_seq) (f32 [B]), and loss[0] = mean over b of
-logsigmoid(chosen_rewards[b] - rejected_rewards[b]). beta a runtime f32 (0.1). B64 L4096. Peer:
torch.compile of TRL's dpo_loss (masked sums, then F.logsigmoid)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def neg_logsigmoid(z):
    # -log(sigmoid(z)) = log(1 + exp(-z)), stable for either sign
    return T.maximum(-z, 0.0) + T.log1p(T.exp(-abs(z)))


@tessel.kernel
def dpo_loss(policy_chosen: T.In[T.f32, ("B", "L")], policy_rejected: T.In[T.f32, ("B", "L")],
             ref_chosen: T.In[T.f32, ("B", "L")], ref_rejected: T.In[T.f32, ("B", "L")],
             chosen_mask: T.In[T.bool_, ("B", "L")], rejected_mask: T.In[T.bool_, ("B", "L")],
             loss: T.Out[T.f32, (1,)], chosen_rewards: T.Out[T.f32, ("B",)],
             rejected_rewards: T.Out[T.f32, ("B",)], beta: T.f32):
    B, L = policy_chosen.shape
    pairs, toks = T.domain(0, B), T.domain(0, L)
    cm, rm = chosen_mask[pairs, toks], rejected_mask[pairs, toks]
    pc = T.sum(T.where(cm, policy_chosen[pairs, toks], 0.0), axis=1)
    rc = T.sum(T.where(cm, ref_chosen[pairs, toks], 0.0), axis=1)
    pr = T.sum(T.where(rm, policy_rejected[pairs, toks], 0.0), axis=1)
    rr = T.sum(T.where(rm, ref_rejected[pairs, toks], 0.0), axis=1)
    cr = beta * (pc - rc)
    rj = beta * (pr - rr)
    chosen_rewards[pairs] = cr
    rejected_rewards[pairs] = rj
    loss[0] = T.sum(neg_logsigmoid(cr - rj)) / T.cast(B, T.f32)


KERNEL = dpo_loss


def _mask(rng, B, L):
    m = np.zeros((B, L), dtype=np.bool_)
    for b in range(B):
        start = int(rng.integers(0, max(L // 2, 1)))          # the prompt
        end = int(rng.integers(start, L + 1))                  # padding after the completion
        m[b, start:end] = True
    return m


def inputs(shape, rng):
    B, L = shape["B"], shape["L"]
    lp = lambda: (-rng.exponential(2.0, (B, L))).astype(np.float32)     # log-probs <= 0
    pc, pr = lp(), lp()
    return dict(policy_chosen=pc, policy_rejected=pr,
                ref_chosen=(pc + 0.3 * rng.standard_normal((B, L))).astype(np.float32),
                ref_rejected=(pr + 0.3 * rng.standard_normal((B, L))).astype(np.float32),
                chosen_mask=_mask(rng, B, L), rejected_mask=_mask(rng, B, L), beta=0.1)


def reference(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    s = lambda x, m: np.where(m, x.astype(np.float64), 0.0).sum(axis=1)
    cr = beta * (s(policy_chosen, chosen_mask) - s(ref_chosen, chosen_mask))
    rj = beta * (s(policy_rejected, rejected_mask) - s(ref_rejected, rejected_mask))
    z = cr - rj
    nls = np.maximum(-z, 0.0) + np.log1p(np.exp(-np.abs(z)))
    B = policy_chosen.shape[0]
    return dict(loss=np.array([nls.sum() / B if B else np.nan]), chosen_rewards=cr, rejected_rewards=rj)


def peer(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    import torch.nn.functional as F
    s = lambda x, m: (x * m).sum(-1)
    cr = beta * (s(policy_chosen, chosen_mask) - s(ref_chosen, chosen_mask))
    rj = beta * (s(policy_rejected, rejected_mask) - s(ref_rejected, rejected_mask))
    return dict(loss=(-F.logsigmoid(cr - rj)).mean().reshape(1), chosen_rewards=cr, rejected_rewards=rj)


def OPS(shape):
    n = shape["B"] * shape["L"]
    return 8 * n, 18 * n


TEST_SHAPES = [dict(B=1, L=1), dict(B=3, L=37), dict(B=7, L=257)]
BENCH_SHAPE = dict(B=64, L=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
