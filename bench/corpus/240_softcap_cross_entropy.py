"""Cross-entropy over final logits with soft-capping (Gemma 2: z <- cap * tanh(z / cap), cap 30) and
ignore_index -100: loss[n] = logsumexp_v(cap * tanh(logits[n, v] / cap)) - cap * tanh(logits[n,
labels[n]] / cap), 0 where labels[n] == -100. Logits bf16 [N, V], labels int64 [N], loss f32 [N].
N4096 V256000. Peer: torch.compile (tanh, log_softmax, nll_loss with reduction='none')."""
import numpy as np
import tessel
import tessel.language as T

CAP = 30.0
IGNORE = -100


@tessel.kernel
def softcap_cross_entropy(logits: T.In[T.bf16, ("N", "V")], labels: T.In[T.i64, ("N",)],
                          loss: T.Out[T.f32, ("N",)]):
    N, V = logits.shape
    vocab = T.domain(0, V)
    for n in T.parallel(T.domain(0, N)):
        z = CAP * T.tanh(T.cast(logits[n, vocab], T.f32) / CAP)
        mx = T.max(z)
        lse = mx + T.log(T.sum(T.exp(z - mx)))
        label = labels[n]
        valid = label != IGNORE
        target = CAP * T.tanh(T.cast(logits[n, T.where(valid, label, 0)], T.f32) / CAP)
        loss[n] = T.where(valid, lse - target, 0.0)


KERNEL = softcap_cross_entropy


def inputs(shape, rng):
    N, V = shape["N"], shape["V"]
    labels = rng.integers(0, V, N).astype(np.int64)
    labels[rng.random(N) < 0.2] = IGNORE
    return dict(logits=(20.0 * rng.standard_normal((N, V))).astype(np.float32), labels=labels)


def reference(logits, labels):
    z = CAP * np.tanh(logits.astype(np.float64) / CAP)
    mx = z.max(-1)
    lse = mx + np.log(np.exp(z - mx[:, None]).sum(-1))
    valid = labels != IGNORE
    t = z[np.arange(len(labels)), np.where(valid, labels, 0)]
    return dict(loss=np.where(valid, lse - t, 0.0))


def peer(logits, labels):
    import torch
    import torch.nn.functional as F
    z = CAP * torch.tanh(logits.float() / CAP)
    return dict(loss=F.cross_entropy(z, labels, ignore_index=IGNORE, reduction="none"))


def OPS(shape):
    n = shape["N"] * shape["V"]
    return 8 * n, 2 * n


TEST_SHAPES = [dict(N=1, V=1), dict(N=3, V=127), dict(N=13, V=1031)]
BENCH_SHAPE = dict(N=4096, V=256000)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
