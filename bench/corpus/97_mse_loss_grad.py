"""mse_loss_grad: mean squared error and its gradient in one kernel, for pred, target [N] (f32):
    loss = mean((pred - target)^2)     (f32, shape [1])
    grad = 2 * (pred - target) / N     (f32 [N])
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def mse_loss_grad(pred: T.In[T.f32, ("N",)], target: T.In[T.f32, ("N",)],
                  loss: T.Out[T.f32, (1,)], grad: T.Out[T.f32, ("N",)]):
    N = pred.shape[0]
    elems = T.domain(0, N)
    nf = T.cast(N, T.f32)
    diff = pred[elems] - target[elems]
    loss[0] = T.sum(diff * diff) / nf
    grad[elems] = 2.0 * diff / nf


KERNEL = mse_loss_grad


def inputs(shape, rng):
    N = shape["N"]
    return dict(pred=rng.standard_normal(N).astype(np.float32),
                target=rng.standard_normal(N).astype(np.float32))


def reference(pred, target):
    d = pred.astype(np.float64) - target.astype(np.float64)
    return dict(loss=np.array([np.mean(d * d)]), grad=2.0 * d / d.size)


def peer(pred, target):
    d = pred - target
    return dict(loss=(d * d).mean().reshape(1), grad=2.0 * d / d.numel())


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=4099)]
BENCH_SHAPE = dict(N=64 * 1024 * 1024)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    return 5 * shape["N"], 12 * shape["N"] + 4
