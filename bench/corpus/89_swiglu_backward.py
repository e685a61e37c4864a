"""swiglu_backward: backward of out = silu(g) * u, elementwise. Given g, u, dout [M, N] (bf16):
    dg = dout * u * silu'(g),  silu'(g) = sigmoid(g) * (1 + g * (1 - sigmoid(g)))
    du = dout * silu(g),        silu(g)  = g * sigmoid(g)
bf16 outputs, f32 math.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def swiglu_backward(g: T.In[T.bf16, ("M", "N")], u: T.In[T.bf16, ("M", "N")],
                    dout: T.In[T.bf16, ("M", "N")],
                    dg: T.Out[T.bf16, ("M", "N")], du: T.Out[T.bf16, ("M", "N")]):
    M, N = g.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    gf = T.cast(g[rows, cols], T.f32)
    uf = T.cast(u[rows, cols], T.f32)
    d = T.cast(dout[rows, cols], T.f32)
    s = T.sigmoid(gf)
    dg[rows, cols] = T.cast(d * uf * s * (1.0 + gf * (1.0 - s)), T.bf16)
    du[rows, cols] = T.cast(d * gf * s, T.bf16)


KERNEL = swiglu_backward


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(g=rng.standard_normal((M, N)).astype(np.float32) * 3.0,
                u=rng.standard_normal((M, N)).astype(np.float32),
                dout=rng.standard_normal((M, N)).astype(np.float32))


def reference(g, u, dout):
    g, u, dout = (a.astype(np.float64) for a in (g, u, dout))
    s = 1.0 / (1.0 + np.exp(-g))
    return dict(dg=dout * u * (s + g * s * (1.0 - s)), du=dout * g * s)


def peer(g, u, dout):
    import torch
    gf, uf, d = g.float(), u.float(), dout.float()
    s = torch.sigmoid(gf)
    return dict(dg=(d * uf * s * (1 + gf * (1 - s))).to(torch.bfloat16),
                du=(d * gf * s).to(torch.bfloat16))


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=131)]
BENCH_SHAPE = dict(M=8192, N=14336)
# bf16 outputs; the Triton interpreter truncates f32 -> bf16 (language.md, "On a CPU")
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    n = shape["M"] * shape["N"]
    return 12 * n, 5 * 2 * n
