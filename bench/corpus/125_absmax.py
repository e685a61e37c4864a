"""Absolute max of a whole tensor (for FP8 scaling): amax = max |x| over x f32 [N], N = 2^28, output one f32. Peer: torch.amax(x.abs()) under torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def absmax(x: T.In[T.f32, ("N",)], amax: T.Out[T.f32, (1,)]):
    elems = T.domain(0, x.shape[0])
    amax[0] = T.max(T.abs(x[elems]))


KERNEL = absmax


def inputs(shape, rng):
    return {"x": (rng.standard_normal(shape["N"]) * 4.0).astype(np.float32)}


def reference(x):
    return {"amax": np.array([np.abs(x).max()], dtype=np.float32)}


def peer(x):
    import torch
    return {"amax": torch.amax(x.abs()).reshape(1)}


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=4099), dict(N=100003)]
BENCH_SHAPE = dict(N=2 ** 28)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"
