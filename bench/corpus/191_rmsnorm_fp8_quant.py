"""RMSNorm then dynamic per-token FP8 quantization: y = x * rsqrt(mean(x^2) + eps) * gamma over each row of
x [M, N] bf16 (gamma [N] bf16, eps 1e-6), then scale[m] = max(max|y[m, :]| / 448, 1e-12) and
q = y / scale cast to float8 e4m3; outputs q [M, N] float8_e4m3fn and scale [M] f32. M=16384 N=4096.
Peer: torch.compile (RMSNorm in f32, amax, divide, .to(float8_e4m3fn))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rmsnorm_fp8_quant(x: T.In[T.bf16, ("M", "N")], gamma: T.In[T.bf16, ("N",)],
                      q: T.Out[T.f8e4m3, ("M", "N")], scale: T.Out[T.f32, ("M",)], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(x[m, cols], T.f32)
        rstd = T.rsqrt(T.sum(row * row) / T.cast(N, T.f32) + eps)
        y = row * rstd * T.cast(gamma[cols], T.f32)
        s = T.maximum(T.max(T.abs(y)) / 448.0, 1e-12)
        scale[m] = s
        q[m, cols] = T.cast(y / s, T.f8e4m3)


KERNEL = rmsnorm_fp8_quant
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=rng.standard_normal((M, N)).astype(np.float32),
                gamma=(1.0 + 0.5 * rng.standard_normal(N)).astype(np.float32),
                eps=1e-6)


def reference(x, gamma, eps):
    # q is compared unrounded: the e4m3 rounding is within half a step (1/16 relative, 2^-10 absolute
    # among subnormals) of y / scale, which TOLERANCE allows
    xd = x.astype(np.float64)
    y = xd / np.sqrt((xd * xd).mean(axis=1, keepdims=True) + eps) * gamma.astype(np.float64)
    s = np.maximum(np.abs(y).max(axis=1) / 448.0, 1e-12)
    return dict(q=y / s[:, None], scale=s)


def peer(x, gamma, eps):
    import torch
    xf = x.float()
    y = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * gamma.float()
    s = (y.abs().amax(dim=-1) / 448.0).clamp(min=1e-12)
    return dict(q=(y / s[:, None]).to(torch.float8_e4m3fn), scale=s)


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=5, N=4096)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=7e-2, atol=2e-3)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 6 * M * N, 2 * M * N + M * N + 2 * N + 4 * M
