"""Linear + bias + residual + LayerNorm: y = layernorm(x @ W^T + b + residual) over the last axis (N), with
gamma, beta and eps; x [M, K] bf16, W [N, K] bf16, b/gamma/beta [N] bf16, residual [M, N] bf16, y [M, N] bf16.
M=16384 K=4096 N=1024. Peer: torch.compile (F.layer_norm(F.linear(x, W, b) + residual))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def linear_residual_layernorm(x: T.In[T.bf16, ("M", "K")], w: T.In[T.bf16, ("N", "K")],
                              b: T.In[T.bf16, ("N",)], residual: T.In[T.bf16, ("M", "N")],
                              gamma: T.In[T.bf16, ("N",)], beta: T.In[T.bf16, ("N",)],
                              y: T.Out[T.bf16, ("M", "N")], eps: T.f32):
    M, K = x.shape
    N = w.shape[0]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    nf = T.cast(N, T.f32)
    h = (T.matmul(x[rows, ks], w[cols, ks], transpose_rhs=True, init=T.cast(b[cols], T.f32))
         + T.cast(residual[rows, cols], T.f32))                                     # f32 [M, N]
    mean = T.sum(h, axis=1) / nf
    d = h - mean
    rstd = T.rsqrt(T.sum(d * d, axis=1) / nf + eps)
    y[rows, cols] = T.cast(d * rstd * T.cast(gamma[cols], T.f32) + T.cast(beta[cols], T.f32), T.bf16)


KERNEL = linear_residual_layernorm
CONSTEXPRS = {}


def inputs(shape, rng):
    M, K, N = shape["M"], shape["K"], shape["N"]
    return dict(x=rng.standard_normal((M, K)).astype(np.float32),
                w=(rng.standard_normal((N, K)) / np.sqrt(K)).astype(np.float32),
                b=(0.1 * rng.standard_normal(N)).astype(np.float32),
                residual=rng.standard_normal((M, N)).astype(np.float32),
                gamma=(1.0 + 0.1 * rng.standard_normal(N)).astype(np.float32),
                beta=(0.1 * rng.standard_normal(N)).astype(np.float32),
                eps=1e-5)


def reference(x, w, b, residual, gamma, beta, eps):
    h = x.astype(np.float64) @ w.astype(np.float64).T + b + residual
    mean = h.mean(axis=1, keepdims=True)
    var = ((h - mean) ** 2).mean(axis=1, keepdims=True)
    return dict(y=(h - mean) / np.sqrt(var + eps) * gamma + beta)


def peer(x, w, b, residual, gamma, beta, eps):
    import torch.nn.functional as F
    h = F.linear(x, w, b) + residual
    return dict(y=F.layer_norm(h, (h.shape[-1],), gamma, beta, eps))


TEST_SHAPES = [dict(M=1, K=1, N=1), dict(M=3, K=17, N=5), dict(M=37, K=131, N=67),
               dict(M=67, K=257, N=130)]
BENCH_SHAPE = dict(M=16384, K=4096, N=1024)
TOLERANCE = dict(rtol=3e-2, atol=3e-2)
PEER = "torch.compile"


def OPS(shape):
    M, K, N = shape["M"], shape["K"], shape["N"]
    return 2 * M * N * K + 8 * M * N, 2 * (M * K + N * K + 2 * M * N + 3 * N)
