"""Per-token log-probabilities of the sampled tokens and the policy's entropy, as RL fine-tuning
(PPO / GRPO, verl and TRL's "selective log-softmax") computes them from the policy's logits: with
z = logits[n, :] / temperature (bf16 logits [N, V] read in f32), logp[n] = z[labels[n]] - logsumexp(z)
and entropy[n] = -sum_v p_v log p_v for p = softmax(z), both f32 [N]; the [N, V] log-softmax is never
written. N=8192 tokens, V=151936 (Qwen2 vocabulary). Peer: torch.compile of log_softmax + gather +
entropy."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def token_logprobs_entropy(logits: T.In[T.bf16, ("N", "V")], labels: T.In[T.i64, ("N",), T.Range(0, "V")],
                           logp: T.Out[T.f32, ("N",)], entropy: T.Out[T.f32, ("N",)], temperature: T.f32):
    N, V = logits.shape
    vocab = T.domain(0, V)
    for n in T.parallel(T.domain(0, N)):
        z = T.cast(logits[n, vocab], T.f32) / temperature
        mx = T.max(z)
        e = T.exp(z - mx)
        s = T.sum(e)
        lse = mx + T.log(s)
        logp[n] = T.cast(logits[n, labels[n]], T.f32) / temperature - lse
        entropy[n] = lse - T.sum(e * z) / s


KERNEL = token_logprobs_entropy


def inputs(shape, rng):
    N, V = shape["N"], shape["V"]
    return dict(logits=(3.0 * rng.standard_normal((N, V))).astype(np.float32),
                labels=rng.integers(0, V, size=N).astype(np.int64), temperature=0.7)


def reference(logits, labels, temperature):
    z = logits.astype(np.float64) / np.float64(np.float32(temperature))
    mx = z.max(axis=1, keepdims=True)
    lse = mx[:, 0] + np.log(np.exp(z - mx).sum(axis=1))
    logsm = z - lse[:, None]
    p = np.exp(logsm)
    return dict(logp=np.take_along_axis(logsm, labels[:, None], axis=1)[:, 0],
                entropy=-(p * logsm).sum(axis=1))


def peer(logits, labels, temperature):
    import torch
    logsm = torch.log_softmax(logits.float() / temperature, dim=-1)
    return dict(logp=logsm.gather(1, labels[:, None]).squeeze(1),
                entropy=-(logsm.exp() * logsm).sum(dim=-1))


def OPS(shape):
    n = shape["N"] * shape["V"]
    return 6 * n, 2 * n


TEST_SHAPES = [dict(N=1, V=1), dict(N=3, V=131), dict(N=7, V=1031),
               dict(N=0, V=7)]   # the last: no rows (check.py; CI runs the second)
BENCH_SHAPE = dict(N=8192, V=151936)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
