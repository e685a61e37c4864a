"""Gradient clipping by global norm over a flat f32 gradient buffer: total = ||g||_2,
g *= min(max_norm / (total + 1e-6), 1) in place, and total is returned (as
torch.nn.utils.clip_grad_norm_). Peer: torch."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def clip_grad_norm(grad: T.InOut[T.f32, ("N",)],
                   total_norm: T.Out[T.f32, (1,)],
                   max_norm: T.f32):
    g = grad[:]
    norm = T.sqrt(T.sum(g * g))
    coef = T.minimum(max_norm / (norm + 1e-6), 1.0)
    grad[:] = g * coef
    total_norm[0] = norm


KERNEL = clip_grad_norm


def inputs(shape, rng):
    N = shape["N"]
    return {"grad": rng.standard_normal(N).astype(np.float32),
            "max_norm": 0.5 * float(np.sqrt(N)) if N > 100 else 0.5}


def reference(grad, max_norm):
    g = grad.astype(np.float64)
    norm = np.sqrt((g * g).sum())
    coef = min(max_norm / (norm + 1e-6), 1.0)
    return {"grad": g * coef, "total_norm": np.array([norm])}


def peer(grad, max_norm):
    import torch
    g = grad.clone()
    norm = torch.linalg.vector_norm(g)           # what clip_grad_norm_ computes for one tensor
    g.mul_(torch.clamp(max_norm / (norm + 1e-6), max=1.0))
    return {"grad": g, "total_norm": norm.reshape(1)}


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=1031), dict(N=40009)]
BENCH_SHAPE = dict(N=100_000_000)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch"


def OPS(shape):
    n = shape["N"]
    return 3 * n, 3 * n * 4
