"""KL divergence per row between two log-prob matrices: kl[m] = sum_n exp(p[m,n]) * (p[m,n] - q[m,n])
= KL(P || Q), with p, q log-probabilities, f32, 8192x32000. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def kl_div_rows(p: T.In[T.f32, ("M", "N")], q: T.In[T.f32, ("M", "N")],
                kl: T.Out[T.f32, ("M",)]):
    M, N = p.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        lp = p[m, cols]
        kl[m] = T.sum(T.exp(lp) * (lp - q[m, cols]))


KERNEL = kl_div_rows
CONSTEXPRS = {}


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(p=_log_softmax(2.0 * rng.standard_normal((M, N))).astype(np.float32),
                q=_log_softmax(2.0 * rng.standard_normal((M, N))).astype(np.float32))


def reference(p, q):
    pd, qd = p.astype(np.float64), q.astype(np.float64)
    return dict(kl=(np.exp(pd) * (pd - qd)).sum(axis=1))


def peer(p, q):
    import torch
    kl = torch.nn.functional.kl_div(q, p, reduction="none", log_target=True).sum(-1)
    return dict(kl=kl)


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=7, N=4099), dict(M=2, N=32000)]
BENCH_SHAPE = dict(M=8192, N=32000)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 4 * M * N, 4 * (2 * M * N + M)
