"""Softmax with a temperature and an additive mask row: p = softmax((x / T) + mask[col]) per row, x f16 [M, N], mask f32 [N] (0 or -inf, at least one 0 per row), T runtime f32. M8192 N4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def softmax_temperature_mask(x: T.In[T.f16, ("M", "N")], mask: T.In[T.f32, ("N",)],
                             p: T.Out[T.f16, ("M", "N")], temperature: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    bias = mask[cols]
    for m in T.parallel(T.domain(0, M)):
        z = T.cast(x[m, cols], T.f32) / temperature + bias
        e = T.exp(z - T.max(z))
        p[m, cols] = T.cast(e / T.sum(e), T.f16)


KERNEL = softmax_temperature_mask


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    mask = np.where(rng.random(N) < 0.3, -np.inf, 0.0).astype(np.float32)
    mask[rng.integers(N)] = 0.0
    return dict(x=(3.0 * rng.standard_normal((M, N))).astype(np.float32), mask=mask,
                temperature=0.7)


def reference(x, mask, temperature):
    z = x.astype(np.float64) / np.float32(temperature) + mask
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return {"p": (e / e.sum(axis=1, keepdims=True)).astype(np.float16)}


def peer(x, mask, temperature):
    import torch
    return {"p": torch.softmax(x.float() / temperature + mask, dim=-1).to(x.dtype)}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=8192, N=4096)
TOLERANCE = dict(rtol=2e-3, atol=1e-3)
PEER = "torch.compile"
