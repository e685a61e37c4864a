"""RMSNorm over groups of 128 channels within each row (group RMS norm): x bf16 [M, N] with N = G*128, w bf16 [N], out bf16; each (row, group) normalized by its own rms, eps 1e-6. M16384 N4096. Peer: torch.compile."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def group_rmsnorm(x: T.In[T.bf16, ("M", "N")], w: T.In[T.bf16, ("N",)], out: T.Out[T.bf16, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m, g in T.parallel(T.domain(0, M), T.domain(0, N // 128)):
        grp = cols[g * 128:g * 128 + 128]
        xs = T.cast(x[m, grp], T.f32)
        r = T.rsqrt(T.sum(xs * xs) / 128.0 + 1e-6)
        out[m, grp] = T.cast(xs * r * T.cast(w[grp], T.f32), T.bf16)


KERNEL = group_rmsnorm


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    assert N % 128 == 0
    return dict(x=rng.standard_normal((M, N)).astype(np.float32), w=rng.uniform(0.5, 1.5, N).astype(np.float32))


def reference(x, w):
    M, N = x.shape
    g = x.astype(np.float64).reshape(M, N // 128, 128)
    y = g / np.sqrt((g * g).mean(-1, keepdims=True) + 1e-6)
    return dict(out=(y.reshape(M, N) * w).astype(np.float32))


def peer(x, w):
    M, N = x.shape
    g = x.float().view(M, N // 128, 128)
    y = g * torch.rsqrt(g.pow(2).mean(-1, keepdim=True) + 1e-6)
    return dict(out=(y.view(M, N) * w.float()).to(torch.bfloat16))


TEST_SHAPES = [dict(M=1, N=128), dict(M=3, N=384), dict(M=17, N=640)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
