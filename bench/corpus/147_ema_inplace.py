"""Exponential moving average of weights in place: p_ema = decay * p_ema + (1 - decay) * p, f32 [N], decay runtime. N 2^27. Peer: torch._foreach_lerp_ or the formula in place."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def ema_inplace(p_ema: T.InOut[T.f32, ("N",)], p: T.In[T.f32, ("N",)], decay: T.f32):
    elems = T.domain(0, p.shape[0])
    p_ema[elems] = decay * p_ema[elems] + (1.0 - decay) * p[elems]


KERNEL = ema_inplace


def inputs(shape, rng):
    N = shape["N"]
    return dict(p_ema=rng.standard_normal(N).astype(np.float32),
                p=rng.standard_normal(N).astype(np.float32), decay=0.999)


def reference(p_ema, p, decay):
    d = np.float64(np.float32(decay))
    return {"p_ema": d * p_ema.astype(np.float64) + (1.0 - d) * p}


def peer(p_ema, p, decay):
    # the formula in place
    p_ema.mul_(decay).add_(p, alpha=1.0 - decay)
    return {"p_ema": p_ema}


def OPS(shape):
    return 3 * shape["N"], 12 * shape["N"]


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=1031), dict(N=65537)]
BENCH_SHAPE = dict(N=2 ** 27)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "formula in place (mul_ then add_)"
