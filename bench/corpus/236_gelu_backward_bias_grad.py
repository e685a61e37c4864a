"""Backward of y = gelu(x + b) (tanh form): dx = dy * gelu'(x + b) [M, N] bf16 and db[n] = sum over m
of dx[m, n] (f32), both outputs from one kernel; x, dy [M, N] bf16, b [N] bf16. M=16384 N=4096.
Peer: torch.compile (Megatron's bias_gelu_back: the derivative formula, then dx.sum(0))."""
import math

import numpy as np
import tessel
import tessel.language as T

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@tessel.fn
def gelu_tanh_grad(z):
    u = SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)
    t = T.tanh(u)
    return 0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * z * z)


@tessel.kernel
def gelu_backward_bias_grad(x: T.In[T.bf16, ("M", "N")], b: T.In[T.bf16, ("N",)],
                            dy: T.In[T.bf16, ("M", "N")],
                            dx: T.Out[T.bf16, ("M", "N")], db: T.Out[T.f32, ("N",)]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    z = T.cast(x[rows, cols], T.f32) + T.cast(b[cols], T.f32)
    d = T.cast(dy[rows, cols], T.f32) * gelu_tanh_grad(z)
    dx[rows, cols] = T.cast(d, T.bf16)
    db[cols] = T.sum(d, axis=0)


KERNEL = gelu_backward_bias_grad
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=rng.standard_normal((M, N), dtype=np.float32) * 2.0,
                b=rng.standard_normal(N).astype(np.float32) * 0.5,
                dy=rng.standard_normal((M, N), dtype=np.float32))


def reference(x, b, dy):
    z = np.asarray(x, np.float64) + np.asarray(b, np.float64)
    t = np.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z ** 3))
    g = 0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * z * z)
    d = np.asarray(dy, np.float64) * g
    return dict(dx=d, db=d.sum(axis=0))


def peer(x, b, dy):
    z = x.float() + b.float()
    t = (SQRT_2_OVER_PI * (z + 0.044715 * z ** 3)).tanh()
    d = dy.float() * (0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * z * z))
    return dict(dx=d.to(x.dtype), db=d.sum(0))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=131), dict(M=67, N=17), dict(M=257, N=130)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 20 * M * N, 3 * 2 * M * N + 6 * N
