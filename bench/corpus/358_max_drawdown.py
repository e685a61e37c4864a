"""Maximum drawdown per price series (risk analytics over many assets): prices f32 [M, T] (> 0); the
drawdown at time t is 1 - p_t / max_{j<=t} p_j (f32 math); outputs the maximum drawdown per row f32 [M] and
the index i32 [M] of the time it occurs (the first one on ties; 0 for a series that never falls). M 8192
T 4096. Peer: torch.compile(cummax + max)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def max_drawdown(prices: T.In[T.f32, ("M", "T")], mdd: T.Out[T.f32, ("M",)], at: T.Out[T.i32, ("M",)]):
    M, Tn = prices.shape
    times = T.domain(0, Tn)
    for m in T.parallel(T.domain(0, M)):
        p = prices[m, times]
        dd = 1.0 - p / T.cummax(p)
        v, i = T.argmax(dd)
        mdd[m] = v
        at[m] = T.cast(i, T.i32)


KERNEL = max_drawdown


def inputs(shape, rng):
    M, Tn = shape["M"], shape["T"]
    steps = rng.standard_normal((M, Tn)) * 0.02
    p = 100.0 * np.exp(np.cumsum(steps, axis=1))
    if M >= 2:
        p[1] = np.linspace(1.0, 2.0, Tn)                            # never falls: drawdown 0 at index 0
    return dict(prices=p.astype(np.float32))


def _drawdown(prices):
    return np.float32(1.0) - prices / np.maximum.accumulate(prices, axis=1)   # f32, as the kernel


def reference(prices):
    dd = _drawdown(prices)
    return dict(mdd=dd.max(axis=1), at=dd.argmax(axis=1).astype(np.int32))


def peer(prices):
    import torch
    dd = 1.0 - prices / torch.cummax(prices, dim=1).values
    v, i = dd.max(dim=1)
    return dict(mdd=v, at=i.to(torch.int32))


ARG_SCORES = {"at": _drawdown}


def OPS(shape):
    M, Tn = shape["M"], shape["T"]
    return 4 * M * Tn, 4 * M * Tn + 8 * M


TEST_SHAPES = [dict(M=0, T=3), dict(M=1, T=1), dict(M=3, T=7), dict(M=5, T=131), dict(M=2, T=1031)]
BENCH_SHAPE = dict(M=8192, T=4096)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"
