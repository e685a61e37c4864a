"""Simplified Mamba selective scan. Per batch b, channel d and state n (16 states):
    h[t, n] = exp(dt[b, t, d] * A[d, n]) * h[t-1, n] + dt[b, t, d] * Bm[b, t, n] * x[b, t, d]   (h[-1] = 0)
    y[b, t, d] = sum_n Cm[b, t, n] * h[t, n] + Dskip[d] * x[b, t, d]
x, dt f32 [B, L, D], A f32 [D, 16], Bm, Cm f32 [B, L, 16], Dskip f32 [D]; y f32 [B, L, D].
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.fn
def affine(a1: T.f32, b1: T.f32, a2: T.f32, b2: T.f32):   # h -> a1 h + b1, then h -> a2 h + b2
    return a1 * a2, a2 * b1 + b2


@tessel.kernel
def selective_scan(x: T.In[T.f32, ("B", "L", "D")], dt: T.In[T.f32, ("B", "L", "D")],
                   A: T.In[T.f32, ("D", 16)], Bm: T.In[T.f32, ("B", "L", 16)],
                   Cm: T.In[T.f32, ("B", "L", 16)], Dskip: T.In[T.f32, ("D",)],
                   y: T.Out[T.f32, ("B", "L", "D")]):
    nb, nl, nd = x.shape
    times, states = T.domain(0, nl), T.domain(0, 16)
    for b, d in T.parallel(T.domain(0, nb), T.domain(0, nd)):
        xs = x[b, times, d]
        delta = dt[b, times, d]
        decay = T.exp(T.broadcast(delta, over=(times, states), dims=[0])
                      * T.broadcast(A[d, states], over=(times, states), dims=[1]))
        drive = T.broadcast(delta * xs, over=(times, states), dims=[0]) * Bm[b, times, states]
        _, h = T.scan((decay, drive), axis=0, identity=(1.0, 0.0), combine=affine)
        y[b, times, d] = T.sum(Cm[b, times, states] * h, axis=1) + Dskip[d] * xs


KERNEL = selective_scan


def inputs(shape, rng):
    B, L, D = shape["B"], shape["L"], shape["D"]
    f = np.float32
    return {"x": rng.standard_normal((B, L, D)).astype(f),
            "dt": rng.uniform(0.001, 0.1, (B, L, D)).astype(f),     # softplus'd step sizes
            "A": -rng.uniform(0.5, 16.0, (D, 16)).astype(f),         # negative: decaying states
            "Bm": rng.standard_normal((B, L, 16)).astype(f),
            "Cm": rng.standard_normal((B, L, 16)).astype(f),
            "Dskip": rng.standard_normal(D).astype(f)}


def reference(x, dt, A, Bm, Cm, Dskip):
    x, dt, A, Bm, Cm, Dskip = (a.astype(np.float64) for a in (x, dt, A, Bm, Cm, Dskip))
    B, L, D = x.shape
    h = np.zeros((B, D, 16))
    y = np.zeros((B, L, D))
    for t in range(L):
        dA = np.exp(dt[:, t, :, None] * A[None])                           # [B, D, 16]
        h = dA * h + (dt[:, t, :] * x[:, t, :])[:, :, None] * Bm[:, t, None, :]
        y[:, t, :] = np.einsum("bdn,bn->bd", h, Cm[:, t]) + Dskip * x[:, t, :]
    return {"y": y}


def peer(x, dt, A, Bm, Cm, Dskip):
    """Eager torch, the sequential loop over t (torch.compile of this loop takes too long to compile)."""
    import torch
    B, L, D = x.shape
    h = torch.zeros(B, D, A.shape[1], dtype=x.dtype, device=x.device)
    ys = []
    for t in range(L):
        h = torch.exp(dt[:, t, :, None] * A) * h + (dt[:, t] * x[:, t])[:, :, None] * Bm[:, t, None, :]
        ys.append(torch.einsum("bdn,bn->bd", h, Cm[:, t]))
    return {"y": torch.stack(ys, 1) + Dskip * x}


TEST_SHAPES = [dict(B=1, L=1, D=1), dict(B=2, L=37, D=3), dict(B=1, L=131, D=5)]
BENCH_SHAPE = dict(B=4, L=2048, D=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "eager (sequential loop over t)"


def OPS(shape):
    B, L, D = shape["B"], shape["L"], shape["D"]
    return 9 * B * L * D * 16, 4 * (3 * B * L * D + 17 * D + 2 * B * L * 16)
