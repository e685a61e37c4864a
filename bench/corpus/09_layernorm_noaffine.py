"""LayerNorm without affine: y = (x - mean(x)) / sqrt(var(x) + eps) over each row, f32,
16384x8192. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def layernorm_noaffine(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    n = T.cast(N, T.f32)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        mean = T.sum(row) / n
        d = row - mean
        var = T.sum(d * d) / n
        y[m, cols] = d * T.rsqrt(var + eps)


KERNEL = layernorm_noaffine
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=(2.0 * rng.standard_normal((M, N)) + 0.5).astype(np.float32), eps=1e-5)


def reference(x, eps):
    xd = x.astype(np.float64)
    mean = xd.mean(axis=1, keepdims=True)
    var = ((xd - mean) ** 2).mean(axis=1, keepdims=True)
    return dict(y=(xd - mean) / np.sqrt(var + eps))


def peer(x, eps):
    import torch
    return dict(y=torch.nn.functional.layer_norm(x, (x.shape[-1],), eps=eps))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=4, N=4099)]
BENCH_SHAPE = dict(M=16384, N=8192)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 5 * M * N, 4 * 2 * M * N
