"""RMSNorm backward: the forward is y = x * rsqrt(mean(x^2) + eps) * w over the rows of x [M, N] bf16
with w [N] f32. Given dy [M, N] bf16, compute dx [M, N] (bf16) and dw [N] (f32, summed over all rows).
M=8192, N=4096. Peer: torch.autograd of the forward under torch.compile (or the closed form)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rmsnorm_backward(x: T.In[T.bf16, ("M", "N")], w: T.In[T.f32, ("N",)],
                     dy: T.In[T.bf16, ("M", "N")],
                     dx: T.Out[T.bf16, ("M", "N")], dw: T.Out[T.f32, ("N",)], eps: T.f32):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    nf = T.cast(N, T.f32)
    xf = T.cast(x[rows, cols], T.f32)
    dyf = T.cast(dy[rows, cols], T.f32)
    r = T.rsqrt(T.sum(xf * xf, axis=1) / nf + eps)           # [M]: 1 / rms of each row
    g = dyf * w[cols]                                         # dL/d(x * r)
    c = T.sum(g * xf, axis=1) / nf                            # [M]
    dx[rows, cols] = T.cast(r * g - xf * (r * r * r * c), T.bf16)
    dw[cols] = T.sum(dyf * xf * r, axis=0)


KERNEL = rmsnorm_backward
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(
        x=rng.standard_normal((M, N)).astype(np.float32),
        w=(1.0 + 0.1 * rng.standard_normal(N)).astype(np.float32),
        dy=rng.standard_normal((M, N)).astype(np.float32),
        eps=1e-6,
    )


def reference(x, w, dy, eps):
    xd, wd, gd = x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64)
    N = xd.shape[1]
    # Jacobian of y_j = x_j * r * w_j with r = (sum(x^2)/N + eps)^-1/2:
    #   dy_j/dx_i = w_j * (delta_ij * r - x_j * x_i * r^3 / N)
    r = 1.0 / np.sqrt((xd ** 2).sum(axis=1, keepdims=True) / N + eps)
    gw = gd * wd
    dx = gw * r - xd * r ** 3 * (gw * xd).sum(axis=1, keepdims=True) / N
    dw = (gd * xd * r).sum(axis=0)
    return dict(dx=dx, dw=dw)


def peer(x, w, dy, eps):
    import torch
    xr = x.detach().float().requires_grad_(True)
    wr = w.detach().requires_grad_(True)
    y = xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + eps) * wr
    gx, gw = torch.autograd.grad(y, (xr, wr), dy.float())
    return dict(dx=gx.to(x.dtype), dw=gw)


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=131), dict(M=5, N=1031)]
BENCH_SHAPE = dict(M=8192, N=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile (autograd)"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 10 * M * N, 2 * 3 * M * N + 8 * N
