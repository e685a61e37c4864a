"""LayerNorm with affine: over the last axis of X [M, N] (bf16), mean and biased variance in f32,
y = (x - mean) / sqrt(var + eps) * gamma + beta, gamma and beta [N] bf16, y bf16, eps 1e-5.
16384x4096. Peer: torch.compile(F.layer_norm)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def layernorm_affine(x: T.In[T.bf16, ("M", "N")], gamma: T.In[T.bf16, ("N",)],
                     beta: T.In[T.bf16, ("N",)], y: T.Out[T.bf16, ("M", "N")], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    n = T.cast(N, T.f32)
    g = T.cast(gamma[cols], T.f32)
    bb = T.cast(beta[cols], T.f32)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(x[m, cols], T.f32)
        mean = T.sum(row) / n
        d = row - mean
        var = T.sum(d * d) / n
        y[m, cols] = T.cast(d * T.rsqrt(var + eps) * g + bb, T.bf16)


KERNEL = layernorm_affine
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=(2.0 * rng.standard_normal((M, N)) + 0.5).astype(np.float32),
                gamma=(1.0 + 0.2 * rng.standard_normal(N)).astype(np.float32),
                beta=(0.1 * rng.standard_normal(N)).astype(np.float32),
                eps=1e-5)


def reference(x, gamma, beta, eps):
    xd = x.astype(np.float64)
    mean = xd.mean(axis=1, keepdims=True)
    var = ((xd - mean) ** 2).mean(axis=1, keepdims=True)
    return dict(y=(xd - mean) / np.sqrt(var + eps) * gamma.astype(np.float64) + beta.astype(np.float64))


def peer(x, gamma, beta, eps):
    import torch
    return dict(y=torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps=eps))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=2, N=4099)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 7 * M * N, 2 * 2 * M * N + 2 * 2 * N
