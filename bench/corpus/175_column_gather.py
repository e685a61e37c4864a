"""Column gather (index_select along the last axis, e.g. pruning channels): out[m, k] = x[m, idx[k]] for
x [M, N] bf16 and idx [K] int32 (values in [0, N), may repeat), out [M, K] bf16. M=8192 N=8192 K=4096.
Peer: torch.compile (torch.index_select(x, 1, idx))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def column_gather(x: T.In[T.bf16, ("M", "N")],
                  idx: T.In[T.i32, ("K",), T.Range(0, "N")],
                  out: T.Out[T.bf16, ("M", "K")]):
    M, N = x.shape
    K = idx.shape[0]
    rows, ks = T.domain(0, M), T.domain(0, K)
    out[rows, ks] = x[rows, idx[ks]]


KERNEL = column_gather
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(x=rng.standard_normal((M, N)).astype(np.float32),
                idx=rng.integers(0, N, size=K).astype(np.int32))


def reference(x, idx):
    return dict(out=x[:, idx.astype(np.int64)])


def peer(x, idx):
    import torch
    return dict(out=torch.index_select(x, 1, idx.long()))


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=127, K=61), dict(M=17, N=131, K=257),
               dict(M=65, N=1031, K=129)]
BENCH_SHAPE = dict(M=8192, N=8192, K=4096)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"


def OPS(shape):
    M, K = shape["M"], shape["K"]
    return 0, 2 * M * K * 2 + 4 * K
