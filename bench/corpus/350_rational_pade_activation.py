"""Rational (Pade) activation, as in rational / KAT group-rational networks: x bf16 [M, D], G = 8 groups of
D/G consecutive channels, each with its own coefficients p f32 [G, 6] and q f32 [G, 4]; y = P(x) / (1 +
|Q(x)|) with P(x) = p0 + p1 x + ... + p5 x^5 and Q(x) = q0 x + q1 x^2 + q2 x^3 + q3 x^4 (the "safe" Pade
unit), computed in f32, output bf16 [M, D]. M16384 D4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rational_activation(x: T.In[T.bf16, ("M", "D")], p: T.In[T.f32, ("G", 6)], q: T.In[T.f32, ("G", 4)],
                        y: T.Out[T.bf16, ("M", "D")]):
    M, D = x.shape
    G = p.shape[0]
    rows, cols = T.domain(0, M), T.domain(0, D)
    g = T.indices(cols) // (D // G)                     # the group of each channel
    v = T.cast(x[rows, cols], T.f32)
    num = p[g, 0] + v * (p[g, 1] + v * (p[g, 2] + v * (p[g, 3] + v * (p[g, 4] + v * p[g, 5]))))
    den = 1.0 + T.abs(v * (q[g, 0] + v * (q[g, 1] + v * (q[g, 2] + v * q[g, 3]))))
    y[rows, cols] = T.cast(num / den, T.bf16)


KERNEL = rational_activation


def inputs(shape, rng):
    M, D, G = shape["M"], shape["D"], shape["G"]
    assert D % G == 0
    return dict(x=(rng.standard_normal((M, D)) * 1.5).astype(np.float32),
                p=(rng.standard_normal((G, 6)) * np.array([0.1, 1.0, 0.5, 0.2, 0.05, 0.01])).astype(np.float32),
                q=(rng.standard_normal((G, 4)) * np.array([1.0, 0.5, 0.1, 0.05])).astype(np.float32))


def reference(x, p, q):
    M, D = x.shape
    G = p.shape[0]
    g = np.arange(D) // (D // G) if G else np.zeros(D, dtype=np.int64)
    v = x.astype(np.float64)
    P, Q = p.astype(np.float64)[g], q.astype(np.float64)[g]          # [D, 6], [D, 4]
    num = sum(P[:, i] * v ** i for i in range(6))
    den = 1.0 + np.abs(sum(Q[:, i] * v ** (i + 1) for i in range(4)))
    return dict(y=num / den)


def peer(x, p, q):
    import torch
    M, D = x.shape
    G = p.shape[0]
    v = x.float().view(M, G, D // G)
    P, Q = p[None, :, :, None], q[None, :, :, None]
    num = P[:, :, 0] + v * (P[:, :, 1] + v * (P[:, :, 2] + v * (P[:, :, 3] + v * (P[:, :, 4] + v * P[:, :, 5]))))
    den = 1.0 + (v * (Q[:, :, 0] + v * (Q[:, :, 1] + v * (Q[:, :, 2] + v * Q[:, :, 3])))).abs()
    return dict(y=(num / den).view(M, D).to(torch.bfloat16))


def OPS(shape):
    M, D = shape["M"], shape["D"]
    return 22 * M * D, 4 * M * D


TEST_SHAPES = [dict(M=0, D=8, G=8), dict(M=1, D=8, G=8), dict(M=3, D=136, G=8), dict(M=13, D=1000, G=8),
               dict(M=5, D=21, G=3)]
BENCH_SHAPE = dict(M=16384, D=4096, G=8)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
