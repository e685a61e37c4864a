"""Bias + Mish: y = mish(x + b) = z * tanh(softplus(z)) with z = x + b (softplus(z) = z above 20, as
torch's threshold), x [M, N] bf16, b [N] bf16, y bf16. M=16384 N=8192. Peer: torch.compile of
F.mish(x + b)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def bias_mish(x: T.In[T.bf16, ("M", "N")], b: T.In[T.bf16, ("N",)], y: T.Out[T.bf16, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    bias = T.cast(b[cols], T.f32)
    for m in T.parallel(T.domain(0, M)):
        z = T.cast(x[m, cols], T.f32) + bias
        sp = T.where(z > 20.0, z, T.log1p(T.exp(z)))
        y[m, cols] = T.cast(z * T.tanh(sp), T.bf16)


KERNEL = bias_mish
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    x = rng.standard_normal((M, N)).astype(np.float32) * 4.0
    x.flat[::7] *= 8.0                        # some z past the softplus threshold, some far below 0
    return dict(x=x, b=rng.standard_normal(N).astype(np.float32))


def reference(x, b):
    z = x.astype(np.float64) + b.astype(np.float64)[None, :]
    sp = np.where(z > 20.0, z, np.log1p(np.exp(np.minimum(z, 20.0))))
    return dict(y=z * np.tanh(sp))


def peer(x, b):
    import torch.nn.functional as F
    return dict(y=F.mish(x + b))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=5, N=4099)]
BENCH_SHAPE = dict(M=16384, N=8192)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
BENCH_TOLERANCE = dict(rtol=2e-2, atol=2e-2)   # the peer rounds z = x + b to bf16 first
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 8 * M * N, 2 * 2 * M * N + 2 * N
