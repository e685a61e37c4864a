"""Sinkhorn normalization (the doubly-stochastic matching used in optimal-transport losses and Sinkhorn
attention): for a batch of cost matrices C f32 [B, N, N], P = exp(-C / eps), then ITERS (a constexpr, 10)
alternating normalizations: divide each row of P by its sum, then each column by its sum; the output is P
f32 [B, N, N]. B64 N256 eps 0.05. Peer: torch.compile of the loop."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sinkhorn(C: T.In[T.f32, ("B", "N", "N")], P: T.Out[T.f32, ("B", "N", "N")], eps: T.f32,
             ITERS: T.Constexpr[int] = 10):
    B, N, _ = C.shape
    idx = T.domain(0, N)
    for b in T.parallel(T.domain(0, B)):
        p = T.exp(-C[b, idx, idx] / eps)                          # [rows, cols], one domain twice
        for _ in range(ITERS):
            p = p / T.broadcast(T.sum(p, axis=1), over=(idx, idx), dims=[0])   # each row by its sum
            p = p / T.broadcast(T.sum(p, axis=0), over=(idx, idx), dims=[1])   # each column by its sum
        P[b, idx, idx] = p


KERNEL = sinkhorn
CONSTEXPRS = dict(ITERS=10)


def inputs(shape, rng):
    B, N = shape["B"], shape["N"]
    return dict(C=rng.random((B, N, N)).astype(np.float32), eps=0.05)


def reference(C, eps):
    p = np.exp(-C.astype(np.float64) / eps)
    for _ in range(CONSTEXPRS["ITERS"]):
        p = p / p.sum(axis=2, keepdims=True)
        p = p / p.sum(axis=1, keepdims=True)
    return dict(P=p)


def peer(C, eps, ITERS=10):
    import torch
    p = torch.exp(-C / eps)
    for _ in range(ITERS):
        p = p / p.sum(dim=2, keepdim=True)
        p = p / p.sum(dim=1, keepdim=True)
    return dict(P=p)


def OPS(shape):
    B, N = shape["B"], shape["N"]
    return B * N * N * (2 + 4 * CONSTEXPRS["ITERS"]), 8 * B * N * N


TEST_SHAPES = [dict(B=1, N=1), dict(B=2, N=13), dict(B=3, N=67)]
BENCH_SHAPE = dict(B=64, N=256)
TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "torch.compile"
# Each normalization's sums are kept per member in workspace (kir-row-parallels: a column sum of the row-
# normalized matrix reads the row sums along the rows it sums, issue 47), so each element recomputes its
# chain exp(-C / eps) / r1 / c1 / ... from C and the kept sums instead of every sum before it (which grew
# the program ~2.5x a normalization: ITERS 10 did not compile in 600 s).
