"""The local part of vocabulary-parallel cross-entropy (Megatron-LM's VocabParallelCrossEntropy /
TransformerEngine's parallel cross-entropy under tensor parallelism: each rank holds the logits of its own
slice of the vocabulary, computes these per-token partials, and the ranks all-reduce them): logits bf16
[N, VL] are the columns vocab_start .. vocab_start + VL - 1 of the full vocabulary (vocab_start a runtime
i32), labels i64 [N] are full-vocabulary ids (-100 for ignored tokens). Per token n, with z = logits[n, :]
in f32: local_max[n] = max of z, sum_exp[n] = sum of exp(z - local_max[n]), and target_logit[n] = z[labels[n]
- vocab_start] when the label lies in this rank's slice, else 0 (all f32 [N]). N16384 VL16032 (Llama 3's
128256-entry vocabulary over 8 ranks, a 16k-token micro-batch). Peer: torch.compile of Megatron's
_VocabParallelCrossEntropy forward before its all-reduces (max, masked gather, exp-sum)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def vocab_parallel_ce_partials(logits: T.In[T.bf16, ("N", "VL")], labels: T.In[T.i64, ("N",)],
                               local_max: T.Out[T.f32, ("N",)], sum_exp: T.Out[T.f32, ("N",)],
                               target_logit: T.Out[T.f32, ("N",)], vocab_start: T.i32):
    N, VL = logits.shape
    vocab = T.domain(0, VL)
    start = T.cast(vocab_start, T.i64)
    for n in T.parallel(T.domain(0, N)):
        z = T.cast(logits[n, vocab], T.f32)
        mx = T.max(z)
        local_max[n] = mx
        sum_exp[n] = T.sum(T.exp(z - mx))
        lab = labels[n] - start
        mine = (lab >= 0) & (lab < T.cast(VL, T.i64))
        col = T.where(mine, lab, T.i64(0))
        target_logit[n] = T.where(mine, T.cast(logits[n, col], T.f32), 0.0)


KERNEL = vocab_parallel_ce_partials


def inputs(shape, rng):
    N, VL = shape["N"], shape["VL"]
    start = 3 * VL                                     # this rank holds the 4th slice of 8
    labels = rng.integers(0, 8 * VL, N)
    if N > 2:
        labels[0] = start + VL - 1                   # this slice's last id
        labels[1] = -100                             # ignored token
        labels[2] = start                            # its first id
    return dict(logits=(rng.standard_normal((N, VL)) * 3.0).astype(np.float32), labels=labels.astype(np.int64),
                vocab_start=int(start))


def reference(logits, labels, vocab_start):
    z = logits.astype(np.float64)
    mx = z.max(axis=1) if z.shape[1] else np.full(z.shape[0], -np.inf)
    se = np.exp(z - mx[:, None]).sum(axis=1)
    lab = labels - vocab_start
    mine = (lab >= 0) & (lab < z.shape[1])
    tgt = np.where(mine, z[np.arange(z.shape[0]), np.where(mine, lab, 0)], 0.0)
    return dict(local_max=mx, sum_exp=se, target_logit=tgt)


def peer(logits, labels, vocab_start):
    import torch
    z = logits.float()
    mx = z.max(dim=1).values
    lab = labels - vocab_start
    mine = (lab >= 0) & (lab < z.shape[1])
    tgt = z.gather(1, torch.where(mine, lab, 0)[:, None])[:, 0].masked_fill(~mine, 0.0)
    return dict(local_max=mx, sum_exp=torch.exp(z - mx[:, None]).sum(dim=1), target_logit=tgt)


def OPS(shape):
    n = shape["N"] * shape["VL"]
    return 4 * n, 2 * n + 20 * shape["N"]


TEST_SHAPES = [dict(N=1, VL=1), dict(N=5, VL=37), dict(N=13, VL=1031)]
BENCH_SHAPE = dict(N=16384, VL=16032)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"
