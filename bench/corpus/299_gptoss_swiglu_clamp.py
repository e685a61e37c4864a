"""gpt-oss's clamped SwiGLU activation of the fused gate/up projection (the openai/gpt-oss reference and
vLLM's swigluoai_and_mul): x bf16 [M, 2F] holds gate and up interleaved, gate = x[:, 0::2] and
up = x[:, 1::2]; gate is clamped above at limit = 7, up to [-7, 7], and out = (up + 1) * gate *
sigmoid(1.702 * gate), bf16 [M, F] (f32 math, rounded once). M 8192 tokens, F 2880 (gpt-oss-20b's expert
width). Peer: torch.compile of the reference formula."""
import numpy as np
import tessel
import tessel.language as T

ALPHA = 1.702
LIMIT = 7.0


@tessel.kernel
def gptoss_swiglu(x: T.In[T.bf16, ("M", "F2")], out: T.Out[T.bf16, ("M", "F")]):
    M, F = out.shape
    rows, cols = T.domain(0, M), T.domain(0, F)
    j = T.indices(cols)
    gate = T.minimum(T.cast(x[rows, 2 * j], T.f32), LIMIT)
    up = T.minimum(T.maximum(T.cast(x[rows, 2 * j + 1], T.f32), -LIMIT), LIMIT)
    out[rows, cols] = T.cast((up + 1.0) * gate * T.sigmoid(ALPHA * gate), T.bf16)


KERNEL = gptoss_swiglu


def inputs(shape, rng):
    M, F, F2 = shape["M"], shape["F"], shape["F2"]
    assert F2 == 2 * F
    return dict(x=(rng.standard_normal((M, F2)) * 4.0).astype(np.float32))   # many values past the limit


def reference(x):
    g = np.minimum(x[:, 0::2].astype(np.float64), LIMIT)
    u = np.clip(x[:, 1::2].astype(np.float64), -LIMIT, LIMIT)
    return dict(out=(u + 1.0) * g / (1.0 + np.exp(-ALPHA * g)))


def peer(x):
    import torch
    g = x[:, 0::2].float().clamp(max=LIMIT)
    u = x[:, 1::2].float().clamp(-LIMIT, LIMIT)
    return dict(out=((u + 1) * g * torch.sigmoid(ALPHA * g)).to(torch.bfloat16))


def OPS(shape):
    n = shape["M"] * shape["F"]
    return 8 * n, 6 * n


TEST_SHAPES = [dict(M=1, F=1, F2=2), dict(M=3, F=5, F2=10), dict(M=17, F=131, F2=262)]
BENCH_SHAPE = dict(M=8192, F=2880, F2=5760)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
