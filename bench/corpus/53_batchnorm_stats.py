"""BatchNorm statistics: per-channel mean and biased variance of an NCHW f32 tensor X [N, C, H, W],
reducing over N, H and W (not the contiguous axis): mean[c], var[c]. N32 C256 H56 W56.
Peer: torch.var_mean(x, dim=(0, 2, 3), unbiased=False) under torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def batchnorm_stats(x: T.In[T.f32, ("N", "C", "H", "W")],
                    mean: T.Out[T.f32, ("C",)], var: T.Out[T.f32, ("C",)]):
    N, C, H, W = x.shape
    ns, hs, ws = T.domain(0, N), T.domain(0, H), T.domain(0, W)
    count = T.cast(N * H * W, T.f32)
    for c in T.parallel(T.domain(0, C)):
        t = x[ns, c, hs, ws]                      # [N, H, W]
        mu = T.sum(t) / count
        d = t - mu
        mean[c] = mu
        var[c] = T.sum(d * d) / count


KERNEL = batchnorm_stats
CONSTEXPRS = {}


def inputs(shape, rng):
    N, C, H, W = shape["N"], shape["C"], shape["H"], shape["W"]
    # a per-channel offset and spread, so a one-pass E[x^2] - E[x]^2 would lose digits
    off = rng.uniform(-3.0, 3.0, size=(1, C, 1, 1))
    sd = rng.uniform(0.5, 2.0, size=(1, C, 1, 1))
    return dict(x=(off + sd * rng.standard_normal((N, C, H, W))).astype(np.float32))


def reference(x):
    xd = x.astype(np.float64)
    mu = xd.mean(axis=(0, 2, 3))
    return dict(mean=mu, var=((xd - mu[None, :, None, None]) ** 2).mean(axis=(0, 2, 3)))


def peer(x):
    import torch
    v, m = torch.var_mean(x, dim=(0, 2, 3), unbiased=False)
    return dict(mean=m, var=v)


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1), dict(N=3, C=5, H=7, W=11), dict(N=2, C=3, H=13, W=17),
               dict(N=5, C=2, H=1, W=31)]
BENCH_SHAPE = dict(N=32, C=256, H=56, W=56)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    n = shape["N"] * shape["C"] * shape["H"] * shape["W"]
    return 4 * n, 4 * n + 8 * shape["C"]
