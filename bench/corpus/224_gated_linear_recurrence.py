"""Gated linear recurrence, per channel: h_t = a_t * h_{t-1} + (1 - a_t) * x_t with a_t = sigmoid(g_t),
h_{-1} = 0; x, g [B, T, C] bf16, state in f32, out h [B, T, C] bf16. B=8 T=4096 C=2048.
Peer: torch.compile (a sequential loop over time is what users write; the peer here is the closed form
with cumulative products in f32 where it is stable: a Python loop over t)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def affine(a1: T.f32, b1: T.f32, a2: T.f32, b2: T.f32):    # h -> a1 h + b1, then h -> a2 h + b2
    return a1 * a2, a2 * b1 + b2


@tessel.kernel
def gated_linear_recurrence(x: T.In[T.bf16, ("B", "T", "C")], g: T.In[T.bf16, ("B", "T", "C")],
                            h: T.Out[T.bf16, ("B", "T", "C")]):
    B, Tn, C = x.shape
    times, chans = T.domain(0, Tn), T.domain(0, C)
    for b in T.parallel(T.domain(0, B)):
        a = T.sigmoid(T.cast(g[b, times, chans], T.f32))
        xs = T.cast(x[b, times, chans], T.f32)
        _, hs = T.scan((a, (1.0 - a) * xs), axis=0, identity=(1.0, 0.0), combine=affine)
        h[b, times, chans] = T.cast(hs, T.bf16)


KERNEL = gated_linear_recurrence
CONSTEXPRS = {}


def inputs(shape, rng):
    B, Tn, C = shape["B"], shape["T"], shape["C"]
    return dict(x=rng.standard_normal((B, Tn, C), dtype=np.float32),
                g=rng.standard_normal((B, Tn, C), dtype=np.float32) * 2.0)


def reference(x, g):
    x, g = np.asarray(x, np.float64), np.asarray(g, np.float64)
    a = 1.0 / (1.0 + np.exp(-g))
    h = np.zeros_like(x)
    prev = np.zeros_like(x[:, 0])
    for t in range(x.shape[1]):
        prev = a[:, t] * prev + (1.0 - a[:, t]) * x[:, t]
        h[:, t] = prev
    return dict(h=h)


def peer(x, g):
    import torch
    a = torch.sigmoid(g.float())
    u = (1.0 - a) * x.float()
    h = torch.empty_like(u)
    prev = torch.zeros_like(u[:, 0])
    for t in range(u.shape[1]):
        prev = a[:, t] * prev + u[:, t]
        h[:, t] = prev
    return dict(h=h.to(x.dtype))


TEST_SHAPES = [dict(B=1, T=1, C=1), dict(B=2, T=37, C=13), dict(B=3, T=131, C=67), dict(B=1, T=300, C=5)]
BENCH_SHAPE = dict(B=8, T=4096, C=2048)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    B, Tn, C = shape["B"], shape["T"], shape["C"]
    return 8 * B * Tn * C, 3 * 2 * B * Tn * C
