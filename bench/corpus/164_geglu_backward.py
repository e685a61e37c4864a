"""GEGLU backward: given a = x[..., :F], g = x[..., F:] (x bf16 [M, 2F]) and dy bf16 [M, F] for y = gelu_tanh(g) * a, write dx bf16 [M, 2F]. M8192 F8192. Peer: torch.compile of autograd's formula written out."""
import math

import numpy as np
import torch
import tessel
import tessel.language as T

K0 = math.sqrt(2.0 / math.pi)
K1 = 0.044715


@tessel.kernel
def geglu_backward(x: T.In[T.bf16, ("M", "F2")], dy: T.In[T.bf16, ("M", "F")], dx: T.Out[T.bf16, ("M", "F2")]):
    M, F = dy.shape
    rows, fs = T.domain(0, M), T.domain(0, F)
    xcols = x.domain(1)
    ha, hg = xcols[0:F], xcols[F:2 * F]
    a = T.cast(x[rows, ha], T.f32)
    g = T.cast(x[rows, hg], T.f32)
    d = T.cast(dy[rows, fs], T.f32)
    t = T.tanh(K0 * (g + K1 * g * g * g))
    gelu = 0.5 * g * (1.0 + t)
    dgelu = 0.5 * (1.0 + t) + 0.5 * g * (1.0 - t * t) * K0 * (1.0 + 3.0 * K1 * g * g)
    dx[rows, ha] = T.cast(d * gelu, T.bf16)
    dx[rows, hg] = T.cast(d * a * dgelu, T.bf16)


KERNEL = geglu_backward


def inputs(shape, rng):
    M, F = shape["M"], shape["F"]
    assert shape["F2"] == 2 * F
    return dict(x=rng.standard_normal((M, 2 * F)).astype(np.float32),
                dy=rng.standard_normal((M, F)).astype(np.float32))


def reference(x, dy):
    F = dy.shape[1]
    a, g, d = x[:, :F].astype(np.float64), x[:, F:].astype(np.float64), dy.astype(np.float64)
    t = np.tanh(K0 * (g + K1 * g ** 3))
    gelu = 0.5 * g * (1 + t)
    dgelu = 0.5 * (1 + t) + 0.5 * g * (1 - t * t) * K0 * (1 + 3 * K1 * g * g)
    return dict(dx=np.concatenate([d * gelu, d * a * dgelu], axis=1).astype(np.float32))


def peer(x, dy):
    F = dy.shape[1]
    a, g, d = x[:, :F].float(), x[:, F:].float(), dy.float()
    t = torch.tanh(K0 * (g + K1 * g ** 3))
    gelu = 0.5 * g * (1 + t)
    dgelu = 0.5 * (1 + t) + 0.5 * g * (1 - t * t) * K0 * (1 + 3 * K1 * g * g)
    return dict(dx=torch.cat([d * gelu, d * a * dgelu], dim=1).to(torch.bfloat16))


TEST_SHAPES = [dict(M=1, F=1, F2=2), dict(M=3, F=67, F2=134), dict(M=17, F=257, F2=514)]
BENCH_SHAPE = dict(M=8192, F=8192, F2=16384)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
