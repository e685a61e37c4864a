"""LayerNorm (affine, eps 1e-5) of very long rows x [M, N] f32, the mean and variance computed in one
numerically stable pass (Welford / Chan: per-chunk (count, mean, M2) summaries merged pairwise);
weight, bias [N] f32; out f32. M=256 N=262144. Peer: torch.compile (F.layer_norm)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def chan_merge(n_a: T.f32, mean_a: T.f32, m2_a: T.f32, n_b: T.f32, mean_b: T.f32, m2_b: T.f32):
    n = n_a + n_b
    delta = mean_b - mean_a
    w_b = T.where(n > 0.0, n_b / n, 0.0)                 # the empty summary (0, 0, 0) is neutral
    return n, mean_a + delta * w_b, m2_a + m2_b + delta * delta * n_a * w_b


@tessel.kernel
def welford_layernorm_long(x: T.In[T.f32, ("M", "N")], weight: T.In[T.f32, ("N",)],
                           bias: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        _, mean, m2 = T.reduce((T.ones(cols), row, T.zeros(cols)), axis=0, identity=(0.0, 0.0, 0.0),
                               combine=chan_merge)
        rstd = T.rsqrt(m2 / T.cast(N, T.f32) + eps)
        y[m, cols] = (row - mean) * rstd * weight[cols] + bias[cols]


KERNEL = welford_layernorm_long
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    # a large common offset per row: the naive E[x^2] - E[x]^2 keeps few digits of the variance here (f32
    # Welford drifts too, ~sqrt(N) ulps of the offset in the mean: TOLERANCE allows it)
    offset = rng.uniform(-300.0, 300.0, size=(M, 1))
    return dict(x=(offset + rng.standard_normal((M, N))).astype(np.float32),
                weight=rng.standard_normal(N).astype(np.float32),
                bias=rng.standard_normal(N).astype(np.float32), eps=1e-5)


def reference(x, weight, bias, eps):
    xd = x.astype(np.float64)
    mean = xd.mean(axis=1, keepdims=True)
    var = ((xd - mean) ** 2).mean(axis=1, keepdims=True)
    return dict(y=(xd - mean) / np.sqrt(var + eps) * weight + bias)


def peer(x, weight, bias, eps):
    import torch
    return dict(y=torch.nn.functional.layer_norm(x, (x.shape[1],), weight, bias, eps))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=5, N=1031), dict(M=2, N=8209)]
BENCH_SHAPE = dict(M=256, N=262144)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 10 * M * N, 4 * (2 * M * N + 2 * N)
