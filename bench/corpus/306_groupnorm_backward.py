"""GroupNorm backward on NCHW (torch's native_group_norm_backward, as diffusion U-Nets and VAEs train
with it): for x, dy bf16 [N, C, H, W], per-channel weight gamma f32 [C], G groups of C / G consecutive
channels (a runtime integer) and eps, each (sample n, group g) has mean and rstd = 1 / sqrt(var + eps)
over its C / G channels and H x W pixels (biased variance, f32), xhat = (x - mean) * rstd, and with
g = dy * gamma[c]: dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), the means over the same group
(bf16 out); dgamma[c] = sum over n, h, w of dy * xhat and dbeta[c] = sum over n, h, w of dy (f32 [C]).
N16 C512 H64 W64, G32. Peer: torch.compile of F.group_norm's autograd backward."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def groupnorm_backward(x: T.In[T.bf16, ("N", "C", "H", "W")], dy: T.In[T.bf16, ("N", "C", "H", "W")],
                       gamma: T.In[T.f32, ("C",)], dx: T.Out[T.bf16, ("N", "C", "H", "W")],
                       dgamma: T.Out[T.f32, ("C",)], dbeta: T.Out[T.f32, ("C",)],
                       groups: T.i32, eps: T.f32):
    N, C, H, W = x.shape
    G = T.cast(groups, T.index)
    CG = C // G
    ns, cs, hs, ws = T.domain(0, N), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    grps = T.domain(0, G)
    cnt = T.cast(CG * H * W, T.f32)
    mean_b = T.buffer(over=(ns, grps), dtype=T.f32, init=None)
    rstd_b = T.buffer(over=(ns, grps), dtype=T.f32, init=None)
    for n, g in T.parallel(ns, grps):
        chans = cs[g * CG:g * CG + CG]
        xv = T.cast(x[n, chans, hs, ws], T.f32)
        mean = T.sum(xv) / cnt
        d = xv - mean
        rstd = T.rsqrt(T.sum(d * d) / cnt + eps)
        xhat = d * rstd
        gv = T.cast(dy[n, chans, hs, ws], T.f32) * gamma[chans]
        mg = T.sum(gv) / cnt
        mgx = T.sum(gv * xhat) / cnt
        dx[n, chans, hs, ws] = T.cast(rstd * (gv - mg - xhat * mgx), T.bf16)
        mean_b[n, g] = mean
        rstd_b[n, g] = rstd
    for c in T.parallel(cs):
        grp = c // CG
        xh = (T.cast(x[ns, c, hs, ws], T.f32) - mean_b[ns, grp]) * rstd_b[ns, grp]
        dyv = T.cast(dy[ns, c, hs, ws], T.f32)
        dgamma[c] = T.sum(dyv * xh)
        dbeta[c] = T.sum(dyv)


KERNEL = groupnorm_backward


def inputs(shape, rng):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    groups = next(g for g in (32, 16, 8, 4, 3, 2, 1) if C % g == 0)
    s = (N, C, H, W)
    return dict(x=(rng.standard_normal(s) * 2.0 + 0.5).astype(np.float32),
                dy=rng.standard_normal(s).astype(np.float32),
                gamma=(1.0 + 0.2 * rng.standard_normal(C)).astype(np.float32), groups=groups, eps=1e-5)


def reference(x, dy, gamma, groups, eps):
    N, C, H, W = x.shape
    xg = x.astype(np.float64).reshape(N, groups, -1)
    mean = xg.mean(-1, keepdims=True)
    rstd = 1.0 / np.sqrt(xg.var(-1, keepdims=True) + eps)
    xhat = ((xg - mean) * rstd).reshape(N, C, H, W)
    g = (dy.astype(np.float64) * gamma[None, :, None, None]).reshape(N, groups, -1)
    xh = xhat.reshape(N, groups, -1)
    dxv = rstd * (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True))
    return dict(dx=dxv.reshape(N, C, H, W), dgamma=(dy * xhat).sum((0, 2, 3)), dbeta=dy.astype(np.float64).sum((0, 2, 3)))


def peer(x, dy, gamma, groups, eps):
    import torch
    import torch.nn.functional as F
    xr = x.detach().float().requires_grad_(True)
    w = gamma.detach().clone().requires_grad_(True)
    b = torch.zeros_like(w, requires_grad=True)
    y = F.group_norm(xr, groups, w, b, eps)
    dxv, dw, db = torch.autograd.grad(y, (xr, w, b), dy.float())
    return dict(dx=dxv.to(x.dtype), dgamma=dw, dbeta=db)


def OPS(shape):
    n = shape["N"] * shape["C"] * shape["H"] * shape["W"]
    return 16 * n, 3 * 2 * n * 2


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1), dict(N=2, C=6, H=3, W=5), dict(N=3, C=8, H=7, W=11)]
BENCH_SHAPE = dict(N=16, C=512, H=64, W=64)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
