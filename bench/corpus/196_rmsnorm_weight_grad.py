"""RMSNorm weight gradient: dgamma[n] = sum over rows m of dy[m, n] * x[m, n] * rstd[m], with dy, x [M, N]
bf16, rstd [M] f32 (saved by the forward), dgamma [N] f32. M=65536 N=4096.
Peer: torch.compile ((dy.float() * x.float() * rstd[:, None]).sum(0))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rmsnorm_weight_grad(dy: T.In[T.bf16, ("M", "N")], x: T.In[T.bf16, ("M", "N")],
                        rstd: T.In[T.f32, ("M",)], dgamma: T.Out[T.f32, ("N",)]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    xhat = T.cast(x[rows, cols], T.f32) * rstd[rows]
    dgamma[cols] = T.sum(T.cast(dy[rows, cols], T.f32) * xhat, axis=0)


KERNEL = rmsnorm_weight_grad
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(dy=rng.standard_normal((M, N)).astype(np.float32),
                x=rng.standard_normal((M, N)).astype(np.float32),
                rstd=rng.uniform(0.5, 2.0, size=M).astype(np.float32))


def reference(dy, x, rstd):
    return dict(dgamma=(dy.astype(np.float64) * x.astype(np.float64) * rstd[:, None]).sum(axis=0))


def peer(dy, x, rstd):
    return dict(dgamma=(dy.float() * x.float() * rstd[:, None]).sum(0))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=1031, N=17), dict(M=257, N=130)]
BENCH_SHAPE = dict(M=65536, N=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 3 * M * N, 4 * M * N + 4 * M + 4 * N
