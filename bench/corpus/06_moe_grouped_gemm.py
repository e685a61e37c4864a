"""MoE grouped GEMM: tokens are sorted by expert, expert e owning rows offsets[e] .. offsets[e+1]-1
(offsets [E+1], i32, offsets[0] = 0, offsets[E] = number of tokens); Y[rows of e] = X[rows of e] @
W[e]. X [M, K], W [E, K, N], Y [M, N] bf16, f32 accumulation. E=8, 16384 tokens, K=4096, N=14336.
Peer: torch._grouped_mm (else a loop of matmuls)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def moe_grouped_gemm(x: T.In[T.bf16, ("M", "K")],
                     w: T.In[T.bf16, ("E", "K", "N")],
                     offsets: T.In[T.i32, ("E1",)],
                     y: T.Out[T.bf16, ("M", "N")]):
    M, K = x.shape
    E, N = w.shape[0], w.shape[2]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    for e in T.parallel(T.domain(0, E)):
        mine = rows[offsets[e]:offsets[e + 1]]          # this expert's tokens; may be empty
        y[mine, cols] = T.cast(T.matmul(x[mine, ks], w[e, ks, cols], acc_dtype=T.f32), T.bf16)


KERNEL = moe_grouped_gemm
CONSTEXPRS = {}


def _bf16(a):
    """Round to bfloat16 (nearest even), returned as float64."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    M, K, N, E = shape["M"], shape["K"], shape["N"], shape["E"]
    assert shape["E1"] == E + 1
    counts = rng.multinomial(M, rng.dirichlet(np.ones(E)))
    if E > 2:
        counts[1] += counts[2]                          # expert 2 gets no tokens
        counts[2] = 0
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return dict(x=rng.standard_normal((M, K)).astype(np.float32),
                w=(rng.standard_normal((E, K, N)) / math.sqrt(K)).astype(np.float32),
                offsets=offsets)


def reference(x, w, offsets):
    x, w = _bf16(x), _bf16(w)
    y = np.zeros((x.shape[0], w.shape[2]))
    for e in range(w.shape[0]):
        lo, hi = int(offsets[e]), int(offsets[e + 1])
        y[lo:hi] = x[lo:hi] @ w[e]
    return dict(y=y)


def peer(x, w, offsets):
    import torch
    if hasattr(torch, "_grouped_mm"):
        # offs: the cumulative end row of each group; W as [E, K, N]
        return dict(y=torch._grouped_mm(x, w, offs=offsets[1:].contiguous(), out_dtype=x.dtype))
    y = torch.empty(x.shape[0], w.shape[2], dtype=x.dtype, device=x.device)
    off = offsets.tolist()
    for e in range(w.shape[0]):
        y[off[e]:off[e + 1]] = x[off[e]:off[e + 1]] @ w[e]
    return dict(y=y)


TEST_SHAPES = [dict(M=1, K=1, N=1, E=1, E1=2), dict(M=37, K=19, N=13, E=3, E1=4),
               dict(M=131, K=64, N=33, E=8, E1=9), dict(M=5, K=7, N=129, E=8, E1=9)]
BENCH_SHAPE = dict(M=16384, K=4096, N=14336, E=8, E1=9)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch._grouped_mm (else a loop of matmuls)"


def OPS(shape):
    M, K, N, E = shape["M"], shape["K"], shape["N"], shape["E"]
    return 2 * M * K * N, 2 * (M * K + E * K * N + M * N) + 4 * (E + 1)
