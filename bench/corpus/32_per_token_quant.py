"""Per-token int8 quantization with absmax scales: for each row (token) of x [M, N] (bf16),
scale = max(absmax(row), 1e-5) / 127 and q = clamp(round(x / scale), -127, 127) as int8; writes q and
the per-token scales (f32, [M, 1]). (The reference lists no FP8 element type, so int8 is used.)"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def per_token_quant(x: T.In[T.bf16, ("M", "N")],
                    q: T.Out[T.i8, ("M", "N")],
                    scale: T.Out[T.f32, ("M", 1)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(x[m, cols], T.f32)
        amax = T.max(T.abs(row))
        s = T.maximum(amax, T.f32(1e-5)) / 127.0
        v = T.floor(row / s + 0.5)                  # round half up (no round op in the language)
        v = T.minimum(T.maximum(v, T.f32(-127.0)), T.f32(127.0))
        q[m, cols] = T.cast(v, T.i8)
        scale[m, 0] = s


KERNEL = per_token_quant
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    # per-token magnitudes vary over a few decades, as activations do
    mag = np.exp(rng.uniform(-3.0, 3.0, size=(M, 1)))
    return {"x": (rng.standard_normal((M, N)) * mag).astype(np.float32)}


def reference(x):
    xf = x.astype(np.float32)
    amax = np.abs(xf).max(axis=1, keepdims=True)
    s = (np.maximum(amax, np.float32(1e-5)) / np.float32(127.0)).astype(np.float32)
    v = np.floor(xf / s + np.float32(0.5))
    q = np.clip(v, -127, 127).astype(np.int8)
    return {"q": q, "scale": s}


def peer(x):
    import torch
    xf = x.float()
    s = xf.abs().amax(dim=-1, keepdim=True).clamp(min=1e-5) / 127.0
    q = (xf / s).round().clamp(-127, 127).to(torch.int8)
    return {"q": q, "scale": s}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=5, N=4099)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=1e-6, atol=1e-6)
BENCH_TOLERANCE = dict(rtol=1e-6, atol=1.0)    # the peer rounds half to even
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 5 * M * N, M * N * 2 + M * N + M * 4
