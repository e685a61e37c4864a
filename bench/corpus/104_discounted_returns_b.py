"""Discounted returns, computed backwards in time: G[b, t] = r[b, t] + gamma * G[b, t + 1] * (1 - done[b, t])
with G[b, T] = 0, for rewards r f32 [B, T], episode ends done bool [B, T] and a float scalar gamma; G f32 [B, T].
Second spelling: the recurrence as a reverse scan of affine maps (docs/language.md's linear-recurrence form),
each step the map g -> c[t] * g + r[t] with c[t] = gamma * (1 - done[b, t]).
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def affine(a1: T.f32, b1: T.f32, a2: T.f32, b2: T.f32):     # g -> a1 g + b1, then g -> a2 g + b2
    return a1 * a2, a2 * b1 + b2


@tessel.kernel
def discounted_returns_b(r: T.In[T.f32, ("B", "T")], done: T.In[T.bool_, ("B", "T")],
                         G: T.Out[T.f32, ("B", "T")], gamma: T.f32):
    B, Tn = r.shape
    times = T.domain(0, Tn)
    for b in T.parallel(T.domain(0, B)):
        c = gamma * (1.0 - T.cast(done[b, times], T.f32))
        _, g = T.scan((c, r[b, times]), axis=0, identity=(1.0, 0.0), combine=affine, exclusive=False,
                      reverse=True)
        G[b, times] = g


KERNEL = discounted_returns_b


def inputs(shape, rng):
    B, Tn = shape["B"], shape["T"]
    return dict(r=rng.standard_normal((B, Tn)).astype(np.float32), done=rng.random((B, Tn)) < 0.05,
                gamma=0.99)


def reference(r, done, gamma):
    B, Tn = r.shape
    G = np.zeros((B, Tn))
    g = np.zeros(B)
    for t in range(Tn - 1, -1, -1):
        g = r[:, t].astype(np.float64) + gamma * g * (1.0 - done[:, t])
        G[:, t] = g
    return {"G": G}


def peer(r, done, gamma):
    import torch
    G = torch.empty_like(r)
    g = torch.zeros_like(r[:, 0])
    notdone = 1.0 - done.float()
    for t in range(r.shape[1] - 1, -1, -1):
        g = r[:, t] + gamma * g * notdone[:, t]
        G[:, t] = g
    return {"G": G}


TEST_SHAPES = [dict(B=1, T=1), dict(B=3, T=17), dict(B=7, T=131)]
BENCH_SHAPE = dict(B=4096, T=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "eager"


def OPS(shape):
    B, Tn = shape["B"], shape["T"]
    return 3 * B * Tn, B * Tn * (4 + 1 + 4)
