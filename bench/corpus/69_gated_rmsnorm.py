"""Gated RMSNorm (Mamba-2): y = rmsnorm(x * silu(z)) * w, with silu(z) = z * sigmoid(z) and
rmsnorm(u) = u * rsqrt(mean_row(u^2) + eps). x, z bf16 [M, N], w [N] bf16, eps f32, y bf16; f32 math.
16384x4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gated_rmsnorm(x: T.In[T.bf16, ("M", "N")], z: T.In[T.bf16, ("M", "N")],
                  w: T.In[T.bf16, ("N",)], y: T.Out[T.bf16, ("M", "N")], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    nf = T.cast(N, T.f32)
    for m in T.parallel(T.domain(0, M)):
        zf = T.cast(z[m, cols], T.f32)
        u = T.cast(x[m, cols], T.f32) * (zf * T.sigmoid(zf))
        r = T.rsqrt(T.sum(u * u) / nf + eps)
        y[m, cols] = T.cast(u * r * T.cast(w[cols], T.f32), T.bf16)


KERNEL = gated_rmsnorm
CONSTEXPRS = {}


def _bf16(a):
    """Round to bfloat16 (nearest even), returned as float64."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=rng.standard_normal((M, N)).astype(np.float32),
                z=(2.0 * rng.standard_normal((M, N))).astype(np.float32),
                w=(1.0 + 0.2 * rng.standard_normal(N)).astype(np.float32),
                eps=1e-5)


def reference(x, z, w, eps):
    xd, zd, wd = _bf16(x), _bf16(z), _bf16(w)
    u = xd * zd / (1.0 + np.exp(-zd))
    r = 1.0 / np.sqrt((u * u).mean(axis=1, keepdims=True) + eps)
    return dict(y=u * r * wd)


def peer(x, z, w, eps):
    import torch
    u = x.float() * torch.nn.functional.silu(z.float())
    y = u * torch.rsqrt(u.pow(2).mean(-1, keepdim=True) + eps) * w.float()
    return dict(y=y.to(x.dtype))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=2, N=4099), dict(M=5, N=256)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 8 * M * N, 2 * 3 * M * N + 2 * N
