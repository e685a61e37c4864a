"""Bayesian personalised ranking loss: users [U, D] f32 and items [I, D] f32 embeddings, triples [N, 3]
int32 (user u, positive item i, negative item j); loss = -mean over triples of
log(sigmoid(<u, i> - <u, j>)), one f32 scalar (log-sigmoid written the stable way,
min(x, 0) - log1p(exp(-|x|))). U=100000 I=200000 D=64 N=1000000. Peer: torch.compile of
-F.logsigmoid((u * (i - j)).sum(-1)).mean() over gathered rows."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def bpr_loss(users: T.In[T.f32, ("U", "D")], items: T.In[T.f32, ("I", "D")],
             triples: T.In[T.i32, ("N", 3)], loss: T.Out[T.f32, (1,)]):
    N = triples.shape[0]
    trips, dims = T.domain(0, N), T.domain(0, users.shape[1])
    u = users[triples[trips, 0], dims]                     # [N, D] gathered rows
    pos = items[triples[trips, 1], dims]
    neg = items[triples[trips, 2], dims]
    x = T.sum(u * (pos - neg), axis=1)                     # [N]: <u, i> - <u, j>
    log_sig = T.minimum(x, 0.0) - T.log1p(T.exp(-abs(x)))
    loss[0] = -T.sum(log_sig) / T.cast(N, T.f32)


KERNEL = bpr_loss
CONSTEXPRS = {}


def inputs(shape, rng):
    U, I, D, N = (shape[n] for n in ("U", "I", "D", "N"))
    trip = np.stack([rng.integers(0, U, N), rng.integers(0, I, N), rng.integers(0, I, N)], axis=1)
    return dict(users=(0.3 * rng.standard_normal((U, D))).astype(np.float32),
                items=(0.3 * rng.standard_normal((I, D))).astype(np.float32),
                triples=trip.astype(np.int32))


def reference(users, items, triples):
    t = triples.astype(np.int64)
    u, i, j = users.astype(np.float64)[t[:, 0]], items.astype(np.float64)[t[:, 1]], items.astype(np.float64)[t[:, 2]]
    x = (u * (i - j)).sum(axis=1)
    return dict(loss=np.array([np.logaddexp(0.0, -x).mean()]))


def peer(users, items, triples):
    import torch.nn.functional as F
    t = triples.long()
    u, i, j = users[t[:, 0]], items[t[:, 1]], items[t[:, 2]]
    return dict(loss=(-F.logsigmoid((u * (i - j)).sum(-1)).mean()).reshape(1))


TEST_SHAPES = [dict(U=1, I=1, D=1, N=1), dict(U=7, I=13, D=5, N=29), dict(U=31, I=67, D=64, N=257),
               dict(U=101, I=53, D=130, N=1031)]
BENCH_SHAPE = dict(U=100000, I=200000, D=64, N=1000000)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    D, N = shape["D"], shape["N"]
    return 3 * N * D + 5 * N, 3 * 4 * N * D + 12 * N
