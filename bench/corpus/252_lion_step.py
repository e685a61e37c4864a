"""Lion optimizer step (Chen et al. 2023; lion-pytorch's update_fn) over a flat f32 parameter buffer:
c = beta1 * m + (1 - beta1) * g; param <- param * (1 - lr * wd) - lr * sign(c); m <- beta2 * m + (1 -
beta2) * g, param and m updated in place; lr, wd, beta1, beta2 runtime f32 scalars. 100M elements.
Peer: torch (lion-pytorch's foreach-free update, eager; torch.compile of it)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def lion_step(param: T.InOut[T.f32, ("N",)], grad: T.In[T.f32, ("N",)], exp_avg: T.InOut[T.f32, ("N",)],
              lr: T.f32, wd: T.f32, beta1: T.f32, beta2: T.f32):
    g, m = grad[:], exp_avg[:]
    c = beta1 * m + (1.0 - beta1) * g
    sign = T.where(c > 0.0, 1.0, T.where(c < 0.0, -1.0, 0.0, dtype=T.f32))
    param[:] = param[:] * (1.0 - lr * wd) - lr * sign
    exp_avg[:] = beta2 * m + (1.0 - beta2) * g


KERNEL = lion_step


def inputs(shape, rng):
    N = shape["N"]
    g = rng.standard_normal(N).astype(np.float32)
    g[rng.random(N) < 0.05] = 0.0
    return dict(param=rng.standard_normal(N).astype(np.float32), grad=g,
                exp_avg=np.where(g == 0.0, 0.0, rng.standard_normal(N)).astype(np.float32),
                lr=1e-4, wd=0.1, beta1=0.9, beta2=0.99)


def reference(param, grad, exp_avg, lr, wd, beta1, beta2):
    f = np.float32
    c = f(beta1) * exp_avg + (f(1) - f(beta1)) * grad        # f32, as the kernel: sign(c) is exact then
    p = param * (f(1) - f(lr) * f(wd)) - f(lr) * np.sign(c)
    return dict(param=p, exp_avg=f(beta2) * exp_avg + (f(1) - f(beta2)) * grad)


def peer(param, grad, exp_avg, lr, wd, beta1, beta2):
    import torch
    param.mul_(1 - lr * wd)
    update = exp_avg.clone().mul_(beta1).add_(grad, alpha=1 - beta1).sign_()
    param.add_(update, alpha=-lr)
    exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)
    return dict(param=param, exp_avg=exp_avg)


def OPS(shape):
    return 8 * shape["N"], 20 * shape["N"]


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=4099)]
BENCH_SHAPE = dict(N=100_000_000)
TOLERANCE = dict(rtol=1e-6, atol=1e-7)
PEER = "torch"
