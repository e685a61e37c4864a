"""Fused residual add + RMSNorm, in place (vLLM's fused_add_rms_norm): residual += x (residual is
updated in place), then out = residual / sqrt(mean(residual^2) + eps) * weight, on the updated
(bf16) residual. bf16, 16384x8192, eps 1e-6. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def fused_add_rmsnorm_inplace(x: T.In[T.bf16, ("M", "N")],
                              residual: T.InOut[T.bf16, ("M", "N")],
                              weight: T.In[T.bf16, ("N",)],
                              out: T.Out[T.bf16, ("M", "N")],
                              eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    w = T.cast(weight[cols], T.f32)
    for m in T.parallel(T.domain(0, M)):
        s = T.cast(T.cast(x[m, cols], T.f32) + T.cast(residual[m, cols], T.f32), T.bf16)
        residual[m, cols] = s
        sf = T.cast(s, T.f32)
        r = T.rsqrt(T.sum(sf * sf) / T.cast(N, T.f32) + eps)
        out[m, cols] = T.cast(sf * r * w, T.bf16)


KERNEL = fused_add_rmsnorm_inplace
CONSTEXPRS = {}


def _bf16(a):
    """Round to bfloat16 (nearest even), returned as float64."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=rng.standard_normal((M, N)).astype(np.float32),
                residual=rng.standard_normal((M, N)).astype(np.float32),
                weight=(1.0 + 0.1 * rng.standard_normal(N)).astype(np.float32),
                eps=1e-6)


def reference(x, residual, weight, eps):
    s = _bf16(_bf16(x) + _bf16(residual))       # the residual as stored (bf16)
    r = 1.0 / np.sqrt(np.mean(s * s, axis=1, keepdims=True) + eps)
    return dict(residual=s, out=s * r * _bf16(weight))


def peer(x, residual, weight, eps):
    import torch
    residual.add_(x)
    rf = residual.float()
    out = (rf * torch.rsqrt(rf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return dict(residual=residual, out=out)


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=5, N=4099)]
BENCH_SHAPE = dict(M=16384, N=8192)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 5 * M * N, 2 * (4 * M * N + N)
