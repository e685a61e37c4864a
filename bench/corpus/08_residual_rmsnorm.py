"""Residual add + RMSNorm: s = x + residual; y = s / sqrt(mean(s^2) + eps) * w. Writes both the sum
and the normalized value, bf16, 16384x8192. Peer: torch.compile, liger."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def residual_rmsnorm(x: T.In[T.bf16, ("M", "N")], residual: T.In[T.bf16, ("M", "N")],
                     w: T.In[T.bf16, ("N",)],
                     s_out: T.Out[T.bf16, ("M", "N")], y: T.Out[T.bf16, ("M", "N")],
                     eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    wf = T.cast(w[cols], T.f32)
    for m in T.parallel(T.domain(0, M)):
        s = T.cast(x[m, cols], T.f32) + T.cast(residual[m, cols], T.f32)
        s_out[m, cols] = T.cast(s, T.bf16)
        ms = T.sum(s * s) / T.cast(N, T.f32)
        r = T.rsqrt(ms + eps)
        y[m, cols] = T.cast(s * r * wf, T.bf16)


KERNEL = residual_rmsnorm
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(
        x=rng.standard_normal((M, N)).astype(np.float32),
        residual=rng.standard_normal((M, N)).astype(np.float32),
        w=(1.0 + 0.1 * rng.standard_normal(N)).astype(np.float32),
        eps=1e-6,
    )


def reference(x, residual, w, eps):
    s = x.astype(np.float64) + residual.astype(np.float64)
    r = 1.0 / np.sqrt(np.mean(s * s, axis=1, keepdims=True) + eps)
    return dict(s_out=s, y=s * r * w.astype(np.float64))


def peer(x, residual, w, eps):
    import torch
    s = x + residual
    sf = s.float()
    y = sf * torch.rsqrt(sf.pow(2).mean(-1, keepdim=True) + eps) * w.float()
    return dict(s_out=s, y=y.to(x.dtype))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=5, N=4099)]
BENCH_SHAPE = dict(M=16384, N=8192)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile, liger"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 5 * M * N, 2 * (4 * M * N + N)
