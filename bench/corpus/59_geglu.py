"""GeGLU gating of a fused projection: x [M, 2N] bf16 holds the gate half and the up half side by side;
out[m, n] = gelu(x[m, n]) * x[m, N + n] with the exact (erf) gelu, out bf16 [M, N]. M=16384, N=4096.
Peer: torch.compile(F.gelu(a) * b after a, b = x.chunk(2, -1))."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def geglu(x: T.In[T.bf16, ("M", "N2")], out: T.Out[T.bf16, ("M", "N")]):
    M, N = out.shape
    rows = T.domain(0, M)
    cols = x.domain(1)                       # [0, 2N)
    gate, up = cols[0:N], cols[N:2 * N]      # both N long (the 2N = N2 relation is unchecked)
    a = T.cast(x[rows, gate], T.f32)
    b = T.cast(x[rows, up], T.f32)
    out[rows, T.domain(0, N)] = T.cast(T.gelu(a) * b, T.bf16)


KERNEL = geglu
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    assert shape["N2"] == 2 * N
    return {"x": (2.0 * rng.standard_normal((M, 2 * N))).astype(np.float32)}


def reference(x):
    xd = x.astype(np.float64)
    N = xd.shape[1] // 2
    a, b = xd[:, :N], xd[:, N:]
    erf = np.vectorize(math.erf)
    return {"out": 0.5 * a * (1.0 + erf(a / math.sqrt(2.0))) * b}


def peer(x):
    import torch.nn.functional as F
    a, b = x.chunk(2, -1)
    return {"out": F.gelu(a) * b}


TEST_SHAPES = [dict(M=1, N=1, N2=2), dict(M=3, N=127, N2=254), dict(M=17, N=131, N2=262),
               dict(M=5, N=1031, N2=2062)]
BENCH_SHAPE = dict(M=16384, N=4096, N2=8192)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return 10 * M * N, 2 * M * 2 * N + 2 * M * N
