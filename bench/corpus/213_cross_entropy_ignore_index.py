"""Mean cross-entropy of logits [N, V] bf16 against int64 targets [N] with ignore_index = -100: a row whose
target is -100 is left out of the sum and of the count; all rows ignored gives 0. V=50257 (GPT-2's
vocabulary, not a power of two), N=8192; one f32 scalar. Peer: torch.compile of
F.cross_entropy(logits.float(), targets, ignore_index=-100) (NaN when every row is ignored)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def cross_entropy_ignore_index(logits: T.In[T.bf16, ("N", "V")], targets: T.In[T.i64, ("N",)],
                               loss: T.Out[T.f32, (1,)]):
    N, V = logits.shape
    rows, vocab = T.domain(0, N), T.domain(0, V)
    lg = T.cast(logits[rows, vocab], T.f32)
    mx = T.max(lg, axis=1)
    lse = mx + T.log(T.sum(T.exp(lg - mx), axis=1))          # [N]
    tgt = targets[rows]
    kept = tgt != -100
    safe = T.where(kept, tgt, 0)                              # an ignored row reads column 0, unused
    picked = T.cast(logits[rows, safe], T.f32)                # each row's target logit, over rows
    count = T.sum(T.where(kept, 1.0, 0.0, dtype=T.f32))
    total = T.sum(T.where(kept, lse - picked, 0.0))
    loss[0] = T.where(count > 0.0, total / T.maximum(count, 1.0), 0.0)


KERNEL = cross_entropy_ignore_index
CONSTEXPRS = {}


def inputs(shape, rng):
    N, V = shape["N"], shape["V"]
    tgt = rng.integers(0, V, size=N).astype(np.int64)
    tgt[rng.random(N) < 0.25] = -100                          # about a quarter of the rows ignored
    if N == 2:                                                # one test shape with every row ignored
        tgt[:] = -100
    return dict(logits=(rng.standard_normal((N, V)) * 3.0).astype(np.float32), targets=tgt)


def reference(logits, targets):
    lg = logits.astype(np.float64)
    mx = lg.max(axis=1)
    lse = mx + np.log(np.exp(lg - mx[:, None]).sum(axis=1))
    kept = targets != -100
    if not kept.any():
        return dict(loss=np.zeros(1))
    rows = np.nonzero(kept)[0]
    return dict(loss=np.array([(lse[rows] - lg[rows, targets[rows]]).mean()]))


def peer(logits, targets):
    import torch
    import torch.nn.functional as F
    loss = F.cross_entropy(logits.float(), targets, ignore_index=-100)
    return dict(loss=torch.nan_to_num(loss, nan=0.0).reshape(1))


TEST_SHAPES = [dict(N=1, V=1), dict(N=2, V=37), dict(N=5, V=131), dict(N=13, V=1031), dict(N=7, V=5003)]
BENCH_SHAPE = dict(N=8192, V=50257)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    N, V = shape["N"], shape["V"]
    return 4 * N * V, 2 * N * V + 8 * N + 4
