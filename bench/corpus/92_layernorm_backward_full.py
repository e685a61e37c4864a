"""layernorm_backward_full: LayerNorm backward with affine weight. Given x, dy [M, N] (bf16), w [N] (f32)
and the forward's saved mean, rstd [M] (f32):
    xhat = (x - mean[m]) * rstd[m],  g = dy * w
    dx[m, n] = rstd[m] * (g - mean_n(g) - xhat * mean_n(g * xhat))        (bf16 [M, N])
    dw[n] = sum_m dy[m, n] * xhat[m, n],   db[n] = sum_m dy[m, n]           (f32 [N])
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def layernorm_backward_full(x: T.In[T.bf16, ("M", "N")], dy: T.In[T.bf16, ("M", "N")],
                            w: T.In[T.f32, ("N",)], mean: T.In[T.f32, ("M",)], rstd: T.In[T.f32, ("M",)],
                            dx: T.Out[T.bf16, ("M", "N")], dw: T.Out[T.f32, ("N",)],
                            db: T.Out[T.f32, ("N",)]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    nf = T.cast(N, T.f32)
    for m in T.parallel(rows):
        xhat = (T.cast(x[m, cols], T.f32) - mean[m]) * rstd[m]
        g = T.cast(dy[m, cols], T.f32) * w[cols]
        c1 = T.sum(g * xhat) / nf
        c2 = T.sum(g) / nf
        dx[m, cols] = T.cast(rstd[m] * (g - c2 - xhat * c1), T.bf16)
    # the weight and bias gradients: column sums over the rows
    xh = (T.cast(x[rows, cols], T.f32) - mean[rows]) * rstd[rows]
    d = T.cast(dy[rows, cols], T.f32)
    dw[cols] = T.sum(d * xh, axis=0)
    db[cols] = T.sum(d, axis=0)


KERNEL = layernorm_backward_full


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    x = (rng.standard_normal((M, N)) * 2.0 + 0.5).astype(np.float32)
    xb = x.astype(np.float64)  # the harness rounds x to bf16; the saved stats are of the forward's x
    mu = xb.mean(axis=1)
    rs = 1.0 / np.sqrt(xb.var(axis=1) + 1e-5)
    return dict(x=x, dy=rng.standard_normal((M, N)).astype(np.float32),
                w=(1.0 + 0.1 * rng.standard_normal(N)).astype(np.float32),
                mean=mu.astype(np.float32), rstd=rs.astype(np.float32))


def reference(x, dy, w, mean, rstd):
    x, dy, w = x.astype(np.float64), dy.astype(np.float64), w.astype(np.float64)
    mu, rs = mean.astype(np.float64)[:, None], rstd.astype(np.float64)[:, None]
    xhat = (x - mu) * rs
    g = dy * w
    dx = rs * (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True))
    return dict(dx=dx, dw=(dy * xhat).sum(axis=0), db=dy.sum(axis=0))


def peer(x, dy, w, mean, rstd):
    import torch
    # torch.autograd of F.layer_norm (it recomputes its own mean/rstd from x, which equal the saved ones)
    xr = x.detach().float().requires_grad_(True)
    wr = w.detach().clone().requires_grad_(True)
    br = torch.zeros_like(wr, requires_grad=True)
    y = torch.nn.functional.layer_norm(xr, (x.shape[1],), wr, br, eps=1e-5)
    gx, gw, gb = torch.autograd.grad(y, (xr, wr, br), dy.float())
    return dict(dx=gx.to(torch.bfloat16), dw=gw, db=gb)


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=37, N=131)]
BENCH_SHAPE = dict(M=16384, N=4096)
# dx is bf16 (the Triton interpreter truncates f32 -> bf16); dw/db sum M f32 products
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile (autograd of F.layer_norm)"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 14 * M * N, 3 * 2 * M * N + 8 * M + 12 * N
