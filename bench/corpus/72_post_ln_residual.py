"""Post-LN transformer residual: y = LayerNorm(x + bias + residual) * g + b over the rows of x [M, N],
with x, residual bf16 [M, N], bias, g, b bf16 [N], eps f32; mean and biased variance in f32, y bf16.
16384x4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def post_ln_residual(x: T.In[T.bf16, ("M", "N")], residual: T.In[T.bf16, ("M", "N")],
                     bias: T.In[T.bf16, ("N",)], g: T.In[T.bf16, ("N",)], b: T.In[T.bf16, ("N",)],
                     y: T.Out[T.bf16, ("M", "N")], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    nf = T.cast(N, T.f32)
    for m in T.parallel(T.domain(0, M)):
        h = (T.cast(x[m, cols], T.f32) + T.cast(bias[cols], T.f32)
             + T.cast(residual[m, cols], T.f32))
        mean = T.sum(h) / nf
        d = h - mean
        var = T.sum(d * d) / nf
        y[m, cols] = T.cast(d * T.rsqrt(var + eps) * T.cast(g[cols], T.f32) + T.cast(b[cols], T.f32),
                            T.bf16)


KERNEL = post_ln_residual
CONSTEXPRS = {}


def _bf16(a):
    """Round to bfloat16 (nearest even), returned as float64."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=rng.standard_normal((M, N)).astype(np.float32),
                residual=(2.0 * rng.standard_normal((M, N)) + 0.5).astype(np.float32),
                bias=(0.1 * rng.standard_normal(N)).astype(np.float32),
                g=(1.0 + 0.2 * rng.standard_normal(N)).astype(np.float32),
                b=(0.1 * rng.standard_normal(N)).astype(np.float32),
                eps=1e-5)


def reference(x, residual, bias, g, b, eps):
    h = _bf16(x) + _bf16(bias) + _bf16(residual)
    mean = h.mean(axis=1, keepdims=True)
    var = ((h - mean) ** 2).mean(axis=1, keepdims=True)
    return dict(y=(h - mean) / np.sqrt(var + eps) * _bf16(g) + _bf16(b))


def peer(x, residual, bias, g, b, eps):
    import torch
    h = x + bias + residual
    return dict(y=torch.nn.functional.layer_norm(h, (h.shape[-1],), g, b, eps))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=2, N=4099), dict(M=6, N=512)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
BENCH_TOLERANCE = dict(rtol=5e-2, atol=5e-2)      # the peer rounds x + bias + residual to bf16 twice
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 10 * M * N, 2 * 3 * M * N + 3 * 2 * N
