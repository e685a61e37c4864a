"""BatchNorm1d forward in training mode with the running-statistics update (torch.nn.BatchNorm1d,
momentum 0.1): for activations x f32 [N, C] (N samples, C features), per feature c the batch mean and
the biased variance over the N samples normalize it, y = (x - mean) / sqrt(var + eps) * gamma[c] +
beta[c]; running_mean[c] <- (1 - momentum) * running_mean[c] + momentum * mean and running_var[c] <-
(1 - momentum) * running_var[c] + momentum * var * N / (N - 1) (the unbiased variance), both updated in
place. N >= 2. N65536 C1024. Peer: torch.compile of F.batch_norm(training=True)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def batchnorm_train(x: T.In[T.f32, ("N", "C")], gamma: T.In[T.f32, ("C",)], beta: T.In[T.f32, ("C",)],
                    running_mean: T.InOut[T.f32, ("C",)], running_var: T.InOut[T.f32, ("C",)],
                    y: T.Out[T.f32, ("N", "C")], momentum: T.f32, eps: T.f32):
    N, C = x.shape
    rows = T.domain(0, N)
    nf = T.cast(N, T.f32)
    for c in T.parallel(T.domain(0, C)):
        col = x[rows, c]
        mean = T.sum(col) / nf
        d = col - mean
        var = T.sum(d * d) / nf
        y[rows, c] = d * T.rsqrt(var + eps) * gamma[c] + beta[c]
        running_mean[c] = (1.0 - momentum) * running_mean[c] + momentum * mean
        running_var[c] = (1.0 - momentum) * running_var[c] + momentum * var * nf / (nf - 1.0)


KERNEL = batchnorm_train


def inputs(shape, rng):
    N, C = shape["N"], shape["C"]
    return dict(x=(rng.standard_normal((N, C)) * 2.0 + 0.5).astype(np.float32),
                gamma=(rng.random(C) + 0.5).astype(np.float32), beta=rng.standard_normal(C).astype(np.float32),
                running_mean=rng.standard_normal(C).astype(np.float32),
                running_var=(rng.random(C) + 0.5).astype(np.float32), momentum=0.1, eps=1e-5)


def reference(x, gamma, beta, running_mean, running_var, momentum, eps):
    x64 = x.astype(np.float64)
    N = x.shape[0]
    mean, var = x64.mean(axis=0), x64.var(axis=0)
    return dict(y=(x64 - mean) / np.sqrt(var + eps) * gamma + beta,
                running_mean=(1 - momentum) * running_mean + momentum * mean,
                running_var=(1 - momentum) * running_var + momentum * var * N / (N - 1))


def peer(x, gamma, beta, running_mean, running_var, momentum, eps):
    import torch.nn.functional as F
    y = F.batch_norm(x, running_mean, running_var, gamma, beta, training=True, momentum=momentum, eps=eps)
    return dict(y=y, running_mean=running_mean, running_var=running_var)


def OPS(shape):
    n = shape["N"] * shape["C"]
    return 8 * n, 8 * n + 24 * shape["C"]


TEST_SHAPES = [dict(N=2, C=1), dict(N=37, C=5), dict(N=263, C=131)]
BENCH_SHAPE = dict(N=65536, C=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
