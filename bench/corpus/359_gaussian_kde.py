"""Gaussian kernel density estimate at query points (mean-shift, KDE scoring, RBF-kernel sums): queries x f32
[Q, D], centers c f32 [C, D] (D 16), bandwidth h (a runtime scalar); density[q] = (1/C) sum_c exp(-|x_q -
c_c|^2 / (2 h^2)), f32 [Q]. Q 65536 C 8192. Peer: torch.compile (cdist-squared + exp + mean)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gaussian_kde(x: T.In[T.f32, ("Q", 16)], c: T.In[T.f32, ("C", 16)], density: T.Out[T.f32, ("Q",)],
                 h: T.f32):
    Q, C = x.shape[0], c.shape[0]
    cents, dims = T.domain(0, C), T.domain(0, 16)
    inv = 1.0 / (2.0 * h * h)
    for q in T.parallel(T.domain(0, Q)):
        diff = c[cents, dims] - x[q, dims]
        d2 = T.sum(diff * diff, axis=1)
        density[q] = T.sum(T.exp(-d2 * inv)) / T.cast(C, T.f32)


KERNEL = gaussian_kde


def inputs(shape, rng):
    Q, C = shape["Q"], shape["C"]
    return dict(x=rng.standard_normal((Q, 16)).astype(np.float32),
                c=(rng.standard_normal((C, 16)) * 1.2).astype(np.float32), h=1.7)


def reference(x, c, h):
    d2 = ((x.astype(np.float64)[:, None, :] - c.astype(np.float64)[None, :, :]) ** 2).sum(axis=2)
    return dict(density=np.exp(-d2 / (2.0 * h * h)).mean(axis=1))


def peer(x, c, h):
    import torch
    d2 = torch.cdist(x, c) ** 2
    return dict(density=torch.exp(-d2 / (2.0 * h * h)).mean(dim=1))


def OPS(shape):
    Q, C = shape["Q"], shape["C"]
    return Q * C * (3 * 16 + 3), 64 * (Q + C) + 4 * Q


# small: through Triton each query walks the centers one at a time (the sum over C is not blocked)
TEST_SHAPES = [dict(Q=0, C=3), dict(Q=1, C=1), dict(Q=3, C=7), dict(Q=11, C=67), dict(Q=2, C=257)]
BENCH_SHAPE = dict(Q=65536, C=8192)
TOLERANCE = dict(rtol=1e-4, atol=1e-7)
BENCH_TOLERANCE = dict(rtol=1e-3, atol=1e-6)
PEER = "torch.compile"
