"""Int8 symmetric per-row (per-token) dynamic quantization of activations (SmoothQuant / vLLM's
dynamic_scaled_int8_quant): per row of x f16 [M, K], scale = absmax(row) / 127 (the absmax floored at 1e-8
so that a zero row does not divide by zero), q = clamp(round(x / scale), -128, 127) with round to nearest
even, outputs q i8 [M, K] and scale f32 [M]. M8192 K8192. Peer: torch.compile of the same formula."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def int8_dynamic_quant(x: T.In[T.f16, ("M", "K")], q: T.Out[T.i8, ("M", "K")], scale: T.Out[T.f32, ("M",)]):
    M, K = x.shape
    cols = T.domain(0, K)
    for m in T.parallel(T.domain(0, M)):
        xf = T.cast(x[m, cols], T.f32)
        s = T.maximum(T.max(T.abs(xf)), 1e-8) / 127.0
        q[m, cols] = T.cast(T.minimum(T.maximum(T.round(xf / s), -128.0), 127.0), T.i8)
        scale[m] = s


KERNEL = int8_dynamic_quant


def inputs(shape, rng):
    M, K = shape["M"], shape["K"]
    x = rng.standard_normal((M, K)) * rng.uniform(0.01, 4.0, (M, 1))
    if M > 2:
        x[1] = 0.0                                                  # an all-zero row
    return dict(x=x.astype(np.float16))


def _scale(x):
    xf = x.astype(np.float32)
    amax = np.abs(xf).max(axis=1) if xf.shape[1] else np.zeros(xf.shape[0], np.float32)
    return xf, (np.maximum(amax, np.float32(1e-8)) / np.float32(127.0)).astype(np.float32)


def _unrounded(x):
    xf, s = _scale(x)
    return xf / s[:, None]                                          # f32, as the kernel divides


def reference(x):
    xf, s = _scale(x)
    q = np.clip(np.rint(xf / s[:, None]), -128, 127).astype(np.int8)
    return dict(q=q, scale=s)


def peer(x):
    import torch
    xf = x.float()
    s = xf.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 127.0
    q = torch.clamp(torch.round(xf / s), -128, 127).to(torch.int8)
    return dict(q=q, scale=s[:, 0])


def OPS(shape):
    M, K = shape["M"], shape["K"]
    return 4 * M * K, 3 * M * K + 4 * M


TEST_SHAPES = [dict(M=0, K=5), dict(M=1, K=1), dict(M=3, K=127), dict(M=17, K=1031), dict(M=5, K=4099)]
BENCH_SHAPE = dict(M=8192, K=8192)
TOLERANCE = dict(rtol=1e-6, atol=0.0)
UNROUNDED = {"q": _unrounded}
PEER = "torch.compile"
