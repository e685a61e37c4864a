"""One SGD step with Nesterov momentum and weight decay, in place: g = grad + wd * p; buf = mu * buf + g;
p -= lr * (g + mu * buf). p, buf f32 [N] (updated in place), grad bf16 [N]; lr, mu, wd runtime f32
scalars. N=100_000_000. Peer: torch.compile of the same update (torch.optim.SGD(nesterov=True)'s
math after its first step)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sgd_nesterov(p: T.InOut[T.f32, ("N",)], buf: T.InOut[T.f32, ("N",)], grad: T.In[T.bf16, ("N",)],
                 lr: T.f32, mu: T.f32, wd: T.f32):
    elems = T.domain(0, p.shape[0])
    w = p[elems]
    g = T.cast(grad[elems], T.f32) + wd * w
    b = mu * buf[elems] + g
    buf[elems] = b
    p[elems] = w - lr * (g + mu * b)


KERNEL = sgd_nesterov
CONSTEXPRS = {}


def inputs(shape, rng):
    N = shape["N"]
    return dict(p=rng.standard_normal(N).astype(np.float32),
                buf=(0.1 * rng.standard_normal(N)).astype(np.float32),
                grad=rng.standard_normal(N).astype(np.float32),
                lr=0.01, mu=0.9, wd=1e-4)


def reference(p, buf, grad, lr, mu, wd):
    # p and buf arrive as copies of the arrays the kernel updates (the harness computes this first)
    pd, bd = p.astype(np.float64), buf.astype(np.float64)
    g = grad.astype(np.float64) + wd * pd
    b = mu * bd + g
    return dict(p=pd - lr * (g + mu * b), buf=b)


def peer(p, buf, grad, lr, mu, wd):
    g = grad.float() + wd * p
    b = mu * buf + g
    return dict(p=p - lr * (g + mu * b), buf=b)


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=1031), dict(N=65537)]
BENCH_SHAPE = dict(N=100_000_000)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    N = shape["N"]
    return 8 * N, (4 + 4) * 2 * N + 2 * N
