"""RMSNorm followed by a linear layer: Y = (rmsnorm(X) * g) @ W, X [M, K] bf16, g [K], W [K, N] bf16. M8192 K4096 N4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rmsnorm_linear(x: T.In[T.bf16, ("M", "K")], g: T.In[T.bf16, ("K",)], w: T.In[T.bf16, ("K", "N")],
                   y: T.Out[T.bf16, ("M", "N")], eps: T.f32):
    M, K = x.shape
    N = w.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    xf = T.cast(x[rows, ks], T.f32)
    rstd = T.rsqrt(T.sum(xf * xf, axis=1) / T.cast(K, T.f32) + eps)          # [M]
    xn = T.cast(xf * rstd * T.cast(g[ks], T.f32), T.bf16)                     # rmsnorm(X) * g, bf16
    y[rows, cols] = T.cast(T.matmul(xn, w[ks, cols]), T.bf16)


KERNEL = rmsnorm_linear


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    M, K, N = shape["M"], shape["K"], shape["N"]
    return {"x": rng.standard_normal((M, K)).astype(np.float32),
            "g": (1.0 + 0.1 * rng.standard_normal(K)).astype(np.float32),
            "w": (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float32), "eps": 1e-6}


def reference(x, g, w, eps):
    rstd = 1.0 / np.sqrt((x.astype(np.float32) ** 2).mean(axis=1, keepdims=True) + np.float32(eps))
    xn = _bf16((x * rstd * g).astype(np.float32))
    return {"y": _bf16((xn.astype(np.float64) @ w.astype(np.float64)).astype(np.float32))}


def peer(x, g, w, eps):
    import torch
    xf = x.float()
    xn = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * g.float()).to(torch.bfloat16)
    return {"y": xn @ w}


TEST_SHAPES = [dict(M=1, K=1, N=1), dict(M=3, K=17, N=5), dict(M=11, K=37, N=13)]
BENCH_SHAPE = dict(M=8192, K=4096, N=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
