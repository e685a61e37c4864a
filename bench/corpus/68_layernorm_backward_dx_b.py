"""LayerNorm backward, input gradient only, with an affine weight: given x [M, N], w [N], dy [M, N] and
the forward's per-row mean [M] and rstd [M], xhat = (x - mean) * rstd and
dx = rstd * (w*dy - mean_row(w*dy) - xhat * mean_row(w*dy*xhat)). x, w, dy, dx bf16 (mean, rstd f32),
f32 math. 16384x4096. Peer: torch.compile.
Second spelling: whole-view math at kernel level, the row means as T.sum(..., axis=1)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def layernorm_backward_dx_b(x: T.In[T.bf16, ("M", "N")], w: T.In[T.bf16, ("N",)],
                            dy: T.In[T.bf16, ("M", "N")], mean: T.In[T.f32, ("M",)],
                            rstd: T.In[T.f32, ("M",)], dx: T.Out[T.bf16, ("M", "N")]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    nf = T.cast(N, T.f32)
    r = rstd[rows]                                                    # [M]
    xhat = (T.cast(x[rows, cols], T.f32) - mean[rows]) * r            # [M, N]
    g = T.cast(w[cols], T.f32) * T.cast(dy[rows, cols], T.f32)        # [M, N]
    c1 = T.sum(g, axis=1) / nf                                        # [M]
    c2 = T.sum(g * xhat, axis=1) / nf                                 # [M]
    dx[rows, cols] = T.cast(r * (g - c1 - xhat * c2), T.bf16)


KERNEL = layernorm_backward_dx_b
CONSTEXPRS = {}


def _bf16(a):
    """Round to bfloat16 (nearest even), returned as float64."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    x = _bf16((1.5 * rng.standard_normal((M, N)) + 0.3).astype(np.float32))
    mean = x.mean(axis=1)
    rstd = 1.0 / np.sqrt(((x - mean[:, None]) ** 2).mean(axis=1) + 1e-5)
    return dict(x=x.astype(np.float32),
                w=(1.0 + 0.2 * rng.standard_normal(N)).astype(np.float32),
                dy=rng.standard_normal((M, N)).astype(np.float32),
                mean=mean.astype(np.float32), rstd=rstd.astype(np.float32))


def reference(x, w, dy, mean, rstd):
    xd, wd, gd = _bf16(x), _bf16(w), _bf16(dy)
    mu, rs = mean.astype(np.float64)[:, None], rstd.astype(np.float64)[:, None]
    xhat = (xd - mu) * rs
    g = wd * gd
    dx = rs * (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True))
    return dict(dx=dx)


def peer(x, w, dy, mean, rstd):
    import torch
    xf, g = x.float(), w.float() * dy.float()
    rs = rstd[:, None]
    xhat = (xf - mean[:, None]) * rs
    dx = rs * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dict(dx=dx.to(torch.bfloat16))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=131), dict(M=2, N=1031), dict(M=7, N=128)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 10 * M * N, 2 * 3 * M * N + 2 * N + 8 * M
