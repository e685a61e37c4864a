"""Masked-LM loss: cross-entropy only at masked positions. logits [N, V] bf16, positions [P] int32
(distinct row indices into logits), labels [P] int64; loss = mean over the P positions of
-log softmax(logits[pos])[label], an f32 scalar. N=16384 V=30522 P=2458.
Peer: torch.compile (cross_entropy of logits[positions])."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def masked_lm_loss(logits: T.In[T.bf16, ("N", "V")], positions: T.In[T.i32, ("P",), T.Range(0, "N")],
                   labels: T.In[T.i64, ("P",), T.Range(0, "V")], loss: T.Out[T.f32, (1,)]):
    N, V = logits.shape
    P = positions.shape[0]
    sel, vocab = T.domain(0, P), T.domain(0, V)
    rows = T.cast(logits[positions[sel], vocab], T.f32)                 # [P, V]
    mx = T.max(rows, axis=1)
    lse = mx + T.log(T.sum(T.exp(rows - mx), axis=1))
    target = T.cast(logits[positions[sel], labels[sel]], T.f32)        # [P]
    loss[0] = T.sum(lse - target) / T.cast(P, T.f32)


KERNEL = masked_lm_loss
CONSTEXPRS = {}


def inputs(shape, rng):
    N, V, P = shape["N"], shape["V"], shape["P"]
    return dict(logits=rng.standard_normal((N, V), dtype=np.float32) * 3.0,
                positions=rng.permutation(N)[:P].astype(np.int32),
                labels=rng.integers(0, V, size=P).astype(np.int64))


def reference(logits, positions, labels):
    x = np.asarray(logits, np.float64)[positions]
    mx = x.max(axis=1)
    lse = mx + np.log(np.exp(x - mx[:, None]).sum(axis=1))
    return dict(loss=np.array([(lse - x[np.arange(len(labels)), labels]).mean()]))


def peer(logits, positions, labels):
    import torch.nn.functional as F
    return dict(loss=F.cross_entropy(logits[positions.long()].float(), labels).reshape(1))


TEST_SHAPES = [dict(N=1, V=1, P=1), dict(N=7, V=131, P=3), dict(N=61, V=1031, P=17), dict(N=40, V=3001, P=29)]
BENCH_SHAPE = dict(N=16384, V=30522, P=2458)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    V, P = shape["V"], shape["P"]
    return 4 * P * V, 2 * P * V + 12 * P
