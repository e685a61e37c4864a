"""SwiGLU activation then per-group FP8 quantization (DeepSeek style): x [M, 2*D] bf16 (M tokens),
h = silu(x[:, :D]) * x[:, D:] in f32; for each group of 128 consecutive columns of a row,
scale = max(absmax(h_group) / 448, 1e-12) and q = h / scale cast to float8 e4m3; outputs q [M, D]
float8_e4m3fn and scales [M, D/128] f32 (D a multiple of 128). M=16384 D=4096.
Peer: torch.compile (silu * up, view as groups, amax, divide, .to(float8_e4m3fn))."""
import numpy as np
import tessel
import tessel.language as T

GROUP = 128


@tessel.kernel
def silu_mul_group_fp8_quant(x: T.In[T.bf16, ("M", "D2")], q: T.Out[T.f8e4m3, ("M", "D")],
                             scales: T.Out[T.f32, ("M", "G")]):
    M, D = q.shape
    G = scales.shape[1]                                   # D // 128
    xcols, qcols = x.domain(1), q.domain(1)
    for t, g in T.parallel(T.domain(0, M), T.domain(0, G)):
        c0 = g * GROUP
        gate = T.cast(x[t, xcols[c0:c0 + GROUP]], T.f32)
        up = T.cast(x[t, xcols[D + c0:D + c0 + GROUP]], T.f32)
        h = gate * T.sigmoid(gate) * up
        s = T.maximum(T.max(T.abs(h)) / 448.0, 1e-12)
        scales[t, g] = s
        q[t, qcols[c0:c0 + GROUP]] = T.cast(h / s, T.f8e4m3)


KERNEL = silu_mul_group_fp8_quant
CONSTEXPRS = {}


def inputs(shape, rng):
    M, D = shape["M"], shape["D"]
    assert shape["D2"] == 2 * D and shape["G"] * GROUP == D
    return dict(x=(2.0 * rng.standard_normal((M, 2 * D))).astype(np.float32))


def reference(x):
    # q is compared unrounded (within half an e4m3 step of y / scale; see TOLERANCE)
    xd = x.astype(np.float64)
    D = xd.shape[1] // 2
    h = xd[:, :D] / (1.0 + np.exp(-xd[:, :D])) * xd[:, D:]
    hg = h.reshape(h.shape[0], D // GROUP, GROUP)
    s = np.maximum(np.abs(hg).max(axis=2) / 448.0, 1e-12)
    return dict(q=(hg / s[:, :, None]).reshape(h.shape), scales=s)


def peer(x):
    import torch
    D = x.shape[1] // 2
    xf = x.float()
    h = torch.nn.functional.silu(xf[:, :D]) * xf[:, D:]
    hg = h.view(h.shape[0], D // GROUP, GROUP)
    s = (hg.abs().amax(dim=-1) / 448.0).clamp(min=1e-12)
    return dict(q=(hg / s[:, :, None]).view(h.shape).to(torch.float8_e4m3fn), scales=s)


def _shape(M, D):
    return dict(M=M, D=D, D2=2 * D, G=D // GROUP)


TEST_SHAPES = [_shape(1, 128), _shape(3, 256), _shape(17, 384), _shape(31, 1024)]
BENCH_SHAPE = _shape(16384, 4096)
TOLERANCE = dict(rtol=7e-2, atol=2e-3)
PEER = "torch.compile"


def OPS(shape):
    M, D = shape["M"], shape["D"]
    return 8 * M * D, 2 * M * 2 * D + M * D + 4 * M * (D // GROUP)
