"""Asymmetric 8-bit weight-only linear layer with per-output-channel scales and zero points (GPTQ /
AutoGPTQ with bits=8 and group_size=-1, HQQ and ONNX-style uint8 weights, as decode serves them): the
weight W [N, K] is stored as unsigned bytes qweight [N, K] (0..255, passed as int8), with per-channel
scales f16 [N] and zero points zeros [N] (0..255, passed as int8), W[n, k] = (qweight[n, k] - zeros[n]) *
scales[n] rounded to f16, and y = x @ W^T for x f16 [M, K], f32 accumulation, y f16 [M, N]. M16 (a decode
batch) K4096 N14336 (Llama-3-8B's up projection). Peer: torch.compile of the dequantization followed by
F.linear."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def w8a16_zp_gemm(x: T.In[T.f16, ("M", "K")], qweight: T.In[T.i8, ("N", "K")], scales: T.In[T.f16, ("N",)],
                  zeros: T.In[T.i8, ("N",)], y: T.Out[T.f16, ("M", "N")]):
    M, K = x.shape
    N = qweight.shape[0]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    q = T.cast(T.cast(qweight[cols, ks], T.i32) & 0xFF, T.f32)
    z = T.cast(T.cast(zeros[cols], T.i32) & 0xFF, T.f32)
    w = T.cast((q - z) * T.cast(scales[cols], T.f32), T.f16)
    y[rows, cols] = T.cast(T.matmul(x[rows, ks], w, transpose_rhs=True, acc_dtype=T.f32), T.f16)


KERNEL = w8a16_zp_gemm


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    q = rng.integers(0, 256, (N, K))
    z = rng.integers(100, 156, N)
    return dict(x=rng.standard_normal((M, K)).astype(np.float16),
                qweight=q.astype(np.uint8).view(np.int8),
                scales=(rng.random(N) * 0.01 + 0.001).astype(np.float16),
                zeros=z.astype(np.uint8).view(np.int8))


def _dequant(qweight, scales, zeros):
    q = qweight.view(np.uint8).astype(np.float32)
    z = zeros.view(np.uint8).astype(np.float32)
    return ((q - z[:, None]) * scales.astype(np.float32)[:, None]).astype(np.float16)


def reference(x, qweight, scales, zeros):
    w = _dequant(qweight, scales, zeros).astype(np.float64)
    return dict(y=(x.astype(np.float64) @ w.T))


def peer(x, qweight, scales, zeros):
    import torch
    q = qweight.view(torch.uint8).float()
    z = zeros.view(torch.uint8).float()
    w = ((q - z[:, None]) * scales.float()[:, None]).half()
    return dict(y=torch.nn.functional.linear(x, w))


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, N * K + 2 * M * K + 2 * M * N + 3 * N


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=37, K=41), dict(M=17, N=29, K=131)]
BENCH_SHAPE = dict(M=16, N=14336, K=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
