"""SyncBatchNorm's statistics merge (torch.batch_norm_gather_stats_with_counts, as nn.SyncBatchNorm runs
it after all-gathering every rank's local statistics, in detection / segmentation training on many GPUs):
rank r saw counts[r] samples (f32 [R]) with per-channel mean mean_r[r, c] and invstd_r[r, c] =
1 / sqrt(var_r + eps) (f32 [R, C], var_r biased). The global mean is the count-weighted mean of the means,
the global biased variance var = sum over r of counts[r] * (var_r + (mean_r - mean)^2) / n with n = sum of
counts, and the outputs are mean[c], invstd[c] = 1 / sqrt(var + eps) (f32 [C]); the running statistics
running_mean, running_var f32 [C] are updated in place with momentum: running_mean = (1 - momentum) *
running_mean + momentum * mean, running_var likewise with the unbiased var * n / (n - 1). R256 C4096.
Peer: torch.batch_norm_gather_stats_with_counts."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sync_bn_gather_stats(mean_r: T.In[T.f32, ("R", "C")], invstd_r: T.In[T.f32, ("R", "C")],
                         counts: T.In[T.f32, ("R",)], running_mean: T.InOut[T.f32, ("C",)],
                         running_var: T.InOut[T.f32, ("C",)], mean: T.Out[T.f32, ("C",)],
                         invstd: T.Out[T.f32, ("C",)], momentum: T.f32, eps: T.f32):
    R, C = mean_r.shape
    ranks = T.domain(0, R)
    cnt = counts[ranks]
    n = T.sum(cnt)
    for c in T.parallel(T.domain(0, C)):
        mr = mean_r[ranks, c]
        ir = invstd_r[ranks, c]
        mu = T.sum(cnt * mr) / n
        var_r = 1.0 / (ir * ir) - eps
        var = T.sum(cnt * (var_r + (mr - mu) * (mr - mu))) / n
        mean[c] = mu
        invstd[c] = T.rsqrt(var + eps)
        running_mean[c] = (1.0 - momentum) * running_mean[c] + momentum * mu
        running_var[c] = (1.0 - momentum) * running_var[c] + momentum * var * n / (n - 1.0)


KERNEL = sync_bn_gather_stats


def inputs(shape, rng):
    R, C = shape["R"], shape["C"]
    eps = 1e-5
    var = rng.random((R, C)) * 3.0 + 0.1
    return dict(mean_r=rng.standard_normal((R, C)).astype(np.float32),
                invstd_r=(1.0 / np.sqrt(var + eps)).astype(np.float32),
                counts=rng.integers(2, 4097, R).astype(np.float32),
                running_mean=rng.standard_normal(C).astype(np.float32),
                running_var=(rng.random(C) + 0.5).astype(np.float32), momentum=0.1, eps=eps)


def reference(mean_r, invstd_r, counts, running_mean, running_var, momentum, eps):
    cnt = counts.astype(np.float64)[:, None]
    n = cnt.sum()
    mu = (cnt * mean_r).sum(0) / n
    var_r = 1.0 / invstd_r.astype(np.float64) ** 2 - eps
    var = (cnt * (var_r + (mean_r - mu) ** 2)).sum(0) / n
    return dict(mean=mu, invstd=1.0 / np.sqrt(var + eps),
                running_mean=(1 - momentum) * running_mean + momentum * mu,
                running_var=(1 - momentum) * running_var + momentum * var * n / (n - 1))


def peer(mean_r, invstd_r, counts, running_mean, running_var, momentum, eps):
    import torch
    rm, rv = running_mean.clone(), running_var.clone()
    x = torch.empty(1, mean_r.shape[1], device=mean_r.device)
    mu, inv = torch.batch_norm_gather_stats_with_counts(x, mean_r, invstd_r, rm, rv, momentum, eps, counts)
    return dict(mean=mu, invstd=inv, running_mean=rm, running_var=rv)


def OPS(shape):
    R, C = shape["R"], shape["C"]
    return 12 * R * C, 8 * R * C + 4 * R + 24 * C


TEST_SHAPES = [dict(R=1, C=1), dict(R=3, C=37), dict(R=13, C=131)]
BENCH_SHAPE = dict(R=256, C=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch"
