"""Online Hadamard rotation of activations before low-bit quantization (QuaRot / SpinQuant, the
fast-hadamard-transform kernel): every row of x bf16 [M, 128] (one head's 128 channels of one token) is
multiplied by the 128 x 128 Sylvester-Hadamard matrix scaled to be orthonormal, y = x @ H / sqrt(128)
with H[i, j] = (-1)^popcount(i & j); y bf16 [M, 128], accumulated in f32. M524288 (16384 tokens x 32
heads). Peer: fast_hadamard_transform.hadamard_transform (torch: x @ H)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def parity7(v):
    """popcount(v) mod 2 of a value below 128."""
    p = v & 1
    for b in range(1, 7):
        p = p ^ ((v >> b) & 1)
    return p


@tessel.kernel
def hadamard_rotate_128(x: T.In[T.bf16, ("M", 128)], y: T.Out[T.bf16, ("M", 128)]):
    M = x.shape[0]
    rows, d = T.domain(0, M), T.domain(0, 128)
    i = T.cast(T.broadcast(T.indices(d), over=(d, d), dims=[0]), T.i32)
    j = T.cast(T.broadcast(T.indices(d), over=(d, d), dims=[1]), T.i32)
    h = T.cast(T.where(parity7(i & j) == 0, 1.0, -1.0, dtype=T.f32), T.bf16)
    acc = T.matmul(x[rows, d], h, acc_dtype=T.f32)
    y[rows, d] = T.cast(acc * (1.0 / math.sqrt(128.0)), T.bf16)


KERNEL = hadamard_rotate_128


def _hadamard():
    i = np.arange(128)
    bits = i[:, None] & i[None, :]
    par = np.zeros_like(bits)
    for b in range(7):
        par ^= (bits >> b) & 1
    return np.where(par == 0, 1.0, -1.0)


def inputs(shape, rng):
    return dict(x=rng.standard_normal((shape["M"], 128)).astype(np.float32))


def reference(x):
    return dict(y=x.astype(np.float64) @ _hadamard() / math.sqrt(128.0))


def peer(x):
    import torch
    h = torch.tensor(_hadamard(), dtype=x.dtype, device=x.device)
    return dict(y=(x @ h) * (1.0 / math.sqrt(128.0)))


def OPS(shape):
    return 2 * shape["M"] * 128 * 128, 4 * shape["M"] * 128


TEST_SHAPES = [dict(M=1), dict(M=37), dict(M=263)]
BENCH_SHAPE = dict(M=524288)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "fast_hadamard_transform (torch x @ H)"
