"""Sparsemax over the rows of a score matrix (Martins & Astudillo 2016; entmax's bisection kernel for
alpha = 2): y[n, :] = max(z - tau_n, 0) with tau_n the threshold where the row's positive parts sum
to 1. The threshold lies in [max(z) - 1, max(z)]; it is found by ITERS = 30 halvings of that interval
(each comparing sum(max(z - mid, 0)) with 1), and the result is renormalized to sum 1 as entmax_bisect
does. z f32 [N, V]. N=16384 V=4096 (sparse attention weights / label distributions). Peer:
torch.compile of the sort-based sparsemax (entmax.sparsemax)."""
import numpy as np
import tessel
import tessel.language as T

ITERS = 30


@tessel.kernel
def sparsemax_bisect(z: T.In[T.f32, ("N", "V")], y: T.Out[T.f32, ("N", "V")], ITERS: T.Constexpr[int] = ITERS):
    N, V = z.shape
    cols = T.domain(0, V)
    for n in T.parallel(T.domain(0, N)):
        row = z[n, cols]
        hi = T.max(row)
        lo = hi - 1.0
        for _ in T.domain(0, ITERS):
            mid = (lo + hi) * 0.5
            if T.sum(T.maximum(row - mid, 0.0)) > 1.0:
                lo = mid
            else:
                hi = mid
        p = T.maximum(row - (lo + hi) * 0.5, 0.0)
        y[n, cols] = p / T.sum(p)


KERNEL = sparsemax_bisect
CONSTEXPRS = {"ITERS": ITERS}


def inputs(shape, rng):
    N, V = shape["N"], shape["V"]
    return dict(z=(2.0 * rng.standard_normal((N, V))).astype(np.float32))


def reference(z):
    z = z.astype(np.float64)
    if z.size == 0:
        return dict(y=z)
    zs = -np.sort(-z, axis=1)
    k = np.arange(1, z.shape[1] + 1)[None, :]
    cs = np.cumsum(zs, axis=1)
    support = 1.0 + k * zs > cs
    kz = support.sum(axis=1, keepdims=True)
    tau = (np.take_along_axis(cs, kz - 1, axis=1) - 1.0) / kz
    return dict(y=np.maximum(z - tau, 0.0))


def peer(z):
    import torch
    zs, _ = torch.sort(z, dim=1, descending=True)
    k = torch.arange(1, z.shape[1] + 1, device=z.device, dtype=z.dtype)[None, :]
    cs = zs.cumsum(dim=1)
    kz = (1.0 + k * zs > cs).sum(dim=1, keepdim=True)
    tau = (cs.gather(1, kz - 1) - 1.0) / kz.to(z.dtype)
    return dict(y=(z - tau).clamp(min=0.0))


def OPS(shape):
    n = shape["N"] * shape["V"]
    return (3 * ITERS + 6) * n, 8 * n


TEST_SHAPES = [dict(N=1, V=1), dict(N=3, V=37), dict(N=7, V=509)]
BENCH_SHAPE = dict(N=16384, V=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
