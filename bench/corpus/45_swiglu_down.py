"""Gated-MLP down path: y = (silu(g) * u) @ W_down for g, u [M, F] bf16 and W_down [F, N] bf16, the
activation fused into the GEMM's A operand; y [M, N] bf16. Bench M=4096 F=14336 N=4096.
Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def swiglu_down(g: T.In[T.bf16, ("M", "F")], u: T.In[T.bf16, ("M", "F")],
                w: T.In[T.bf16, ("F", "N")], y: T.Out[T.bf16, ("M", "N")]):
    M, F = g.shape
    N = w.shape[1]
    rows, cols, fs = T.domain(0, M), T.domain(0, N), T.domain(0, F)
    gf = T.cast(g[rows, fs], T.f32)
    h = T.cast(gf * T.sigmoid(gf) * T.cast(u[rows, fs], T.f32), T.bf16)   # silu(g) * u, bf16 A operand
    y[rows, cols] = T.cast(T.matmul(h, w[fs, cols]), T.bf16)               # f32 accumulator


KERNEL = swiglu_down


def _bf16(a):
    """Round float32 to the nearest bf16 (ties to even), kept as float32."""
    b = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    M, F, N = shape["M"], shape["F"], shape["N"]
    return {
        "g": rng.standard_normal((M, F)).astype(np.float32),
        "u": rng.standard_normal((M, F)).astype(np.float32),
        "w": (rng.standard_normal((F, N)) / np.sqrt(F)).astype(np.float32),
    }


def reference(g, u, w):
    g, u, w = (_bf16(np.asarray(t, dtype=np.float32)) for t in (g, u, w))
    h = _bf16(g / (1.0 + np.exp(-g)) * u)
    y = h.astype(np.float64) @ w.astype(np.float64)
    return {"y": _bf16(y.astype(np.float32))}


def peer(g, u, w):
    import torch.nn.functional as F
    return {"y": (F.silu(g) * u) @ w}


TEST_SHAPES = [dict(M=1, F=1, N=1), dict(M=3, F=37, N=5), dict(M=19, F=131, N=67)]
BENCH_SHAPE = dict(M=4096, F=14336, N=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, F, N = shape["M"], shape["F"], shape["N"]
    return 2 * M * F * N + 5 * M * F, 2 * (2 * M * F + F * N + M * N)
