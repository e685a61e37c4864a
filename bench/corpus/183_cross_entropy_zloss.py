"""Cross-entropy with z-loss, mean over rows: logits [N, V] bf16, labels [N] int32 (-100 = ignore the
row); loss = mean over kept rows of (lse - logit[label]) + 1e-4 * mean over the same rows of lse^2,
lse = logsumexp of the row; one f32 scalar out. N=8192 V=32000.
Peer: torch.compile (F.cross_entropy(ignore_index=-100) + 1e-4 * (logsumexp^2)[kept].mean())."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def cross_entropy_zloss(logits: T.In[T.bf16, ("N", "V")],
                        labels: T.In[T.i32, ("N",)],
                        loss: T.Out[T.f32, (1,)]):
    N, V = logits.shape
    rows, vocab = T.domain(0, N), T.domain(0, V)
    z = T.cast(logits[rows, vocab], T.f32)                         # [N, V]
    mx = T.max(z, axis=1)
    lse = mx + T.log(T.sum(T.exp(z - mx), axis=1))                 # [N]
    lab = labels[rows]
    kept = lab != -100
    target = T.cast(logits[rows, T.where(kept, lab, 0)], T.f32)   # the label's logit of each row
    n_kept = T.sum(T.where(kept, 1.0, 0.0, dtype=T.f32))
    ce = T.sum(T.where(kept, lse - target, 0.0))
    zl = T.sum(T.where(kept, lse * lse, 0.0))
    loss[0] = (ce + 1e-4 * zl) / n_kept


KERNEL = cross_entropy_zloss
CONSTEXPRS = {}


def inputs(shape, rng):
    N, V = shape["N"], shape["V"]
    labels = rng.integers(0, V, size=N).astype(np.int32)
    labels[rng.random(N) < 0.25] = -100
    labels[0] = rng.integers(0, V)                                 # at least one kept row
    return dict(logits=(2.0 * rng.standard_normal((N, V))).astype(np.float32), labels=labels)


def reference(logits, labels):
    z = logits.astype(np.float64)
    mx = z.max(axis=1)
    lse = mx + np.log(np.exp(z - mx[:, None]).sum(axis=1))
    kept = labels != -100
    tgt = z[np.arange(z.shape[0]), np.where(kept, labels, 0)]
    ce = (lse - tgt)[kept].mean()
    return dict(loss=np.array([ce + 1e-4 * (lse[kept] ** 2).mean()]))


def peer(logits, labels):
    import torch
    import torch.nn.functional as F
    z = logits.float()
    lse = torch.logsumexp(z, dim=-1)
    kept = labels != -100
    ce = F.cross_entropy(z, labels.long(), ignore_index=-100)
    zl = (lse * lse * kept).sum() / kept.sum()
    return dict(loss=(ce + 1e-4 * zl).reshape(1))


TEST_SHAPES = [dict(N=1, V=1), dict(N=3, V=127), dict(N=17, V=1031), dict(N=61, V=4099)]
BENCH_SHAPE = dict(N=8192, V=32000)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    N, V = shape["N"], shape["V"]
    return 4 * N * V, 2 * N * V + 4 * N
