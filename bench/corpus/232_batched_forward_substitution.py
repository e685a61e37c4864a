"""Batched forward substitution: solve L x = b for many small lower-triangular systems; L [B, n, n] f32
(non-zero diagonal; its upper triangle is not read), b [B, n] f32, x [B, n] f32. B=65536 n=32.
Peer: torch.compile (torch.linalg.solve_triangular(upper=False))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def batched_forward_substitution(L: T.In[T.f32, ("B", "n", "n")], b: T.In[T.f32, ("B", "n")],
                                 x: T.Out[T.f32, ("B", "n")]):
    B, n = b.shape
    systems, cols = T.domain(0, B), T.domain(0, n)
    sol = T.buffer(over=(systems, cols), dtype=T.f32, init=0.0)     # solved entries so far, zeros after
    for s in T.parallel(systems):
        for i in T.domain(0, n):
            # x[i] = (b[i] - sum_{j < i} L[i, j] x[j]) / L[i, i]; entries j >= i are still 0
            done = T.sum(T.where(T.indices(cols) < i, L[s, i, cols] * sol[s, cols], 0.0))
            sol[s, i] = (b[s, i] - done) / L[s, i, i]
        x[s, cols] = sol[s, cols]


KERNEL = batched_forward_substitution
CONSTEXPRS = {}


def inputs(shape, rng):
    B, n = shape["B"], shape["n"]
    L = rng.standard_normal((B, n, n)).astype(np.float32) * np.float32(0.3 / np.sqrt(max(n, 1)))
    d = np.arange(n)
    L[:, d, d] = (1.0 + rng.random((B, n))).astype(np.float32) * rng.choice([-1.0, 1.0], size=(B, n))
    L[:, d[:, None] < d[None, :]] = np.float32(7.0)        # garbage above the diagonal: never read
    return dict(L=L, b=rng.standard_normal((B, n)).astype(np.float32))


def reference(L, b):
    Ld, bd = np.tril(L.astype(np.float64)), b.astype(np.float64)
    x = np.zeros_like(bd)
    for i in range(bd.shape[1]):
        x[:, i] = (bd[:, i] - np.einsum("bj,bj->b", Ld[:, i, :i], x[:, :i])) / Ld[:, i, i]
    return dict(x=x)


def peer(L, b):
    import torch
    return dict(x=torch.linalg.solve_triangular(L, b[..., None], upper=False)[..., 0])


TEST_SHAPES = [dict(B=1, n=1), dict(B=3, n=7), dict(B=17, n=32), dict(B=5, n=37)]
BENCH_SHAPE = dict(B=65536, n=32)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    B, n = shape["B"], shape["n"]
    return B * n * n, 4 * B * (n * (n + 1) // 2 + 2 * n)
