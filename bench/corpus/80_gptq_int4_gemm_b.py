"""GPTQ-style int4 weight-only GEMM (decode): Y = X @ W^T with X f16 [M, K], Y f16 [M, N], and W [N, K]
stored as 4-bit values packed two to a byte in Wq [N, K/2] (low nibble = even k, high nibble = odd k),
with per-group scales [N, K/128] f16 and zero points [N, K/128] (uint8 values, 0..15):
    W[n, k] = (nibble(n, k) - zeros[n, k // 128]) * scales[n, k // 128]

tessel has no unsigned integer types (docs/language.md, "Element types and constants"), so the packed
bytes and the zero points are declared i8 (the uint8 tensors viewed as int8: `wq.view(torch.int8)`)
and the nibbles taken from the bits with a shift and a mask. K/2 and K/128 are separate symbols (no
declared relations between extents).
Second spelling: no [N, K] weight is formed; the packed bytes are read once, and the even and odd k
(low and high nibbles) are two half-K products over the byte axis, X's even and odd columns gathered.
"""
import numpy as np

import tessel
import tessel.language as T

GROUP = 128


@tessel.kernel
def gptq_int4_gemm(x: T.In[T.f16, ("M", "K")], wq: T.In[T.i8, ("N", "KH")],
                   scales: T.In[T.f16, ("N", "G")], zeros: T.In[T.i8, ("N", "G")],
                   y: T.Out[T.f16, ("M", "N")]):
    M, K = x.shape
    N, KH = wq.shape
    rows, cols, pairs = T.domain(0, M), T.domain(0, N), T.domain(0, KH)
    j = T.indices(pairs)
    byte = T.cast(wq[cols, pairs], T.i32)                        # [N, K/2]
    g = (2 * j) // GROUP
    zero = T.cast(zeros[cols, g], T.i32) & 255
    sc = scales[cols, g]
    w_even = T.cast((byte & 15) - zero, T.f16) * sc
    w_odd = T.cast(((byte >> 4) & 15) - zero, T.f16) * sc
    acc = (T.matmul(x[rows, 2 * j], w_even, transpose_rhs=True)
           + T.matmul(x[rows, 2 * j + 1], w_odd, transpose_rhs=True))
    y[rows, cols] = T.cast(acc, T.f16)


KERNEL = gptq_int4_gemm


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    assert shape["KH"] * 2 == K and shape["G"] * GROUP == K
    return {"x": rng.standard_normal((M, K)).astype(np.float16),
            "wq": rng.integers(0, 256, (N, K // 2), dtype=np.uint8).view(np.int8),
            "scales": rng.uniform(0.005, 0.02, (N, K // GROUP)).astype(np.float16),
            "zeros": rng.integers(0, 16, (N, K // GROUP), dtype=np.uint8).view(np.int8)}


def reference(x, wq, scales, zeros):
    b = wq.view(np.uint8).astype(np.int64)
    N, KH = b.shape
    nib = np.empty((N, 2 * KH), np.int64)
    nib[:, 0::2] = b & 15
    nib[:, 1::2] = b >> 4
    z = np.repeat(zeros.view(np.uint8).astype(np.int64), GROUP, axis=1)
    s = np.repeat(scales.astype(np.float16), GROUP, axis=1)
    w = ((nib - z).astype(np.float16) * s).astype(np.float64)    # the f16 weight, as dequantized
    return {"y": x.astype(np.float64) @ w.T}


def peer(x, wq, scales, zeros):
    import torch
    b = wq.view(torch.uint8).int()
    N = b.shape[0]
    nib = torch.stack([b & 15, b >> 4], dim=-1).reshape(N, -1)
    z = zeros.view(torch.uint8).int().repeat_interleave(GROUP, dim=1)
    w = (nib - z).half() * scales.repeat_interleave(GROUP, dim=1)
    return {"y": x @ w.T}


TEST_SHAPES = [dict(M=1, N=1, K=128, KH=64, G=1), dict(M=3, N=7, K=256, KH=128, G=2),
               dict(M=5, N=13, K=384, KH=192, G=3)]
BENCH_SHAPE = dict(M=16, N=4096, K=4096, KH=2048, G=32)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, 2 * M * K + N * K // 2 + 3 * N * (K // GROUP) + 2 * M * N
