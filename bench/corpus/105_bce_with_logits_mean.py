"""Binary cross-entropy with logits, mean over all elements, with a positive-class weight pw:
loss = mean(-(pw * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x)))), computed stably
(-log(sigmoid(x)) = softplus(-x), -log(1 - sigmoid(x)) = softplus(x), softplus(z) = max(z, 0) + log1p(exp(-|z|)));
x, y [N] f32, out f32 [1].
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def bce_with_logits_mean(x: T.In[T.f32, ("N",)], y: T.In[T.f32, ("N",)], loss: T.Out[T.f32, (1,)],
                         pos_weight: T.f32):
    N = x.shape[0]
    elems = T.domain(0, N)
    xv, yv = x[elems], y[elems]
    log_term = T.log1p(T.exp(-T.abs(xv)))
    sp_neg = T.maximum(-xv, 0.0) + log_term          # -log(sigmoid(x))
    sp_pos = T.maximum(xv, 0.0) + log_term           # -log(1 - sigmoid(x))
    per = pos_weight * yv * sp_neg + (1.0 - yv) * sp_pos
    loss[0] = T.sum(per) / T.cast(N, T.f32)


KERNEL = bce_with_logits_mean


def inputs(shape, rng):
    N = shape["N"]
    return dict(x=(rng.standard_normal(N) * 4).astype(np.float32),
                y=(rng.random(N) < 0.3).astype(np.float32), pos_weight=2.5)


def reference(x, y, pos_weight):
    x, y = x.astype(np.float64), y.astype(np.float64)
    log_sig = -np.logaddexp(0.0, -x)          # log(sigmoid(x))
    log_one_minus = -np.logaddexp(0.0, x)     # log(1 - sigmoid(x))
    return {"loss": np.array([np.mean(-(pos_weight * y * log_sig + (1 - y) * log_one_minus))])}


def peer(x, y, pos_weight):
    import torch
    import torch.nn.functional as F
    pw = torch.tensor(pos_weight, dtype=x.dtype, device=x.device)
    return {"loss": F.binary_cross_entropy_with_logits(x, y, pos_weight=pw).reshape(1)}


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=4099)]
BENCH_SHAPE = dict(N=64 * 1024 * 1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    N = shape["N"]
    return 12 * N, 8 * N + 4
