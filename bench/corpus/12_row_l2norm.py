"""Row L2 normalization with eps: y = x / max(||x||_2, eps) over each row, bf16, 65536x1024.
Peer: torch.compile (torch.nn.functional.normalize)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def row_l2norm(x: T.In[T.bf16, ("M", "N")], y: T.Out[T.bf16, ("M", "N")], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(x[m, cols], T.f32)
        norm = T.sqrt(T.sum(row * row))
        y[m, cols] = T.cast(row / T.maximum(norm, eps), T.bf16)


KERNEL = row_l2norm
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=rng.standard_normal((M, N)).astype(np.float32), eps=1e-12)


def reference(x, eps):
    xd = x.astype(np.float64)
    norm = np.sqrt((xd * xd).sum(axis=1, keepdims=True))
    return dict(y=xd / np.maximum(norm, eps))


def peer(x, eps):
    import torch
    return dict(y=torch.nn.functional.normalize(x, p=2.0, dim=-1, eps=eps))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=33, N=1024)]
BENCH_SHAPE = dict(M=65536, N=1024)
TOLERANCE = dict(rtol=2e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 3 * M * N, 2 * 2 * M * N
