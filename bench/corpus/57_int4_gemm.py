"""Weight-only int4 GEMM: W [K, N] stored as packed bytes wq [K/2, N] (two unsigned 4-bit values per
byte along K: low nibble = even k, high nibble = odd k), per-group (group 128 along K) f16 scales and
zero points [K/128, N]; dequant(W)[k, n] = (nibble - zero[k // 128, n]) * scale[k // 128, n];
Y = X @ dequant(W), X [M, K] f16, f32 accumulation, Y [M, N] f16. M=16 (decode) and M=4096 (prefill),
N = K = 4096. Peer: torch.compile of dequantize-then-matmul."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def int4_gemm(x: T.In[T.f16, ("M", "K")], wq: T.In[T.i8, ("KH", "N")],
              scales: T.In[T.f16, ("NG", "N")], zeros: T.In[T.f16, ("NG", "N")],
              y: T.Out[T.f16, ("M", "N")], GROUP: T.Constexpr[int] = 128):
    M, K = x.shape
    N = wq.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    k = T.indices(ks)
    packed = wq[k // 2, cols]                                  # [K, N]: the byte holding row k
    nib = (packed >> (T.cast(k % 2, T.i8) * 4)) & 0xF          # low nibble for even k, high for odd
    g = k // GROUP
    w = (T.cast(nib, T.f16) - zeros[g, cols]) * scales[g, cols]
    y[rows, cols] = T.cast(T.matmul(x[rows, ks], w, acc_dtype=T.f32), T.f16)


KERNEL = int4_gemm
CONSTEXPRS = {"GROUP": 128}


def _shape(M, N, K):
    return dict(M=M, N=N, K=K, KH=K // 2, NG=(K + 127) // 128)


def inputs(shape, rng):
    M, N, K, KH, NG = shape["M"], shape["N"], shape["K"], shape["KH"], shape["NG"]
    return dict(x=rng.standard_normal((M, K)).astype(np.float16),
                wq=rng.integers(-128, 128, size=(KH, N)).astype(np.int8),
                scales=((0.5 + rng.random((NG, N))) / (4.0 * math.sqrt(K))).astype(np.float16),
                zeros=rng.integers(0, 16, size=(NG, N)).astype(np.float16))


def _unpack(wq):
    b = wq.view(np.uint8).astype(np.int64)
    lo, hi = b & 0xF, b >> 4
    return np.stack([lo, hi], axis=1).reshape(2 * wq.shape[0], wq.shape[1])   # row 2j low, 2j+1 high


def reference(x, wq, scales, zeros):
    nib = _unpack(wq).astype(np.float64)
    g = np.arange(nib.shape[0]) // CONSTEXPRS["GROUP"]
    w = ((nib - zeros.astype(np.float64)[g]) * scales.astype(np.float64)[g]).astype(np.float16)
    return dict(y=x.astype(np.float64) @ w.astype(np.float64))


def peer(x, wq, scales, zeros):
    import torch
    b = wq.view(torch.uint8)
    nib = torch.stack([b & 0xF, b >> 4], dim=1).reshape(2 * b.shape[0], b.shape[1]).to(torch.float16)
    grp = CONSTEXPRS["GROUP"]
    K = nib.shape[0]
    s = scales.repeat_interleave(grp, dim=0)[:K]
    z = zeros.repeat_interleave(grp, dim=0)[:K]
    return dict(y=x @ ((nib - z) * s))


TEST_SHAPES = [_shape(1, 1, 2), _shape(3, 5, 130), _shape(16, 67, 258), _shape(29, 131, 386)]
BENCH_SHAPE = _shape(4096, 4096, 4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, 2 * M * K + K * N // 2 + 4 * shape["NG"] * N + 2 * M * N
