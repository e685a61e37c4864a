"""Huber (smooth L1) loss, mean over all elements, delta 1.0, pred and target f32 [N]; output one f32 scalar. N 2^26. Peer: F.smooth_l1_loss under torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def huber_loss_mean(pred: T.In[T.f32, ("N",)], target: T.In[T.f32, ("N",)], loss: T.Out[T.f32, (1,)]):
    N = pred.shape[0]
    elems = T.domain(0, N)
    d = pred[elems] - target[elems]
    ad = T.abs(d)
    per = T.where(ad < 1.0, 0.5 * d * d, ad - 0.5)
    loss[0] = T.sum(per) / T.cast(N, T.f32)


KERNEL = huber_loss_mean


def inputs(shape, rng):
    N = shape["N"]
    return dict(pred=(1.5 * rng.standard_normal(N)).astype(np.float32),
                target=rng.standard_normal(N).astype(np.float32))


def reference(pred, target):
    d = pred.astype(np.float64) - target
    ad = np.abs(d)
    return {"loss": np.array([np.where(ad < 1.0, 0.5 * d * d, ad - 0.5).mean()])}


def peer(pred, target):
    import torch.nn.functional as F
    return {"loss": F.smooth_l1_loss(pred, target, beta=1.0).reshape(1)}


def OPS(shape):
    return 5 * shape["N"], 8 * shape["N"] + 4


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=1031), dict(N=65537)]
BENCH_SHAPE = dict(N=2 ** 26)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
BENCH_TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "F.smooth_l1_loss under torch.compile"
