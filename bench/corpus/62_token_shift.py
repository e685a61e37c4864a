"""RWKV-style token shift and mix: out[b, t, :] = mu * x[b, t, :] + (1 - mu) * x[b, t - 1, :], where
x[b, -1, :] is taken as 0; mu [D] f32, x bf16 [B, T, D], out bf16. B8 T4096 D2048. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def token_shift(x: T.In[T.bf16, ("B", "T", "D")], mu: T.In[T.f32, ("D",)],
                out: T.Out[T.bf16, ("B", "T", "D")]):
    B, Tn, D = x.shape
    dims = T.domain(0, D)
    m = mu[dims]
    for b, t in T.parallel(T.domain(0, B), T.domain(0, Tn)):
        cur = T.cast(x[b, t, dims], T.f32)
        prev = T.cast(T.load(x, (b, t - 1, dims), valid=t > 0, fill=0.0), T.f32)   # row -1 reads 0
        out[b, t, dims] = T.cast(m * cur + (1.0 - m) * prev, T.bf16)


KERNEL = token_shift
CONSTEXPRS = {}


def inputs(shape, rng):
    B, Tn, D = shape["B"], shape["T"], shape["D"]
    return dict(x=rng.standard_normal((B, Tn, D)).astype(np.float32),
                mu=rng.uniform(0.0, 1.0, size=D).astype(np.float32))


def reference(x, mu):
    xd, md = x.astype(np.float64), mu.astype(np.float64)
    prev = np.zeros_like(xd)
    prev[:, 1:, :] = xd[:, :-1, :]
    return dict(out=md * xd + (1.0 - md) * prev)


def peer(x, mu):
    import torch.nn.functional as F
    prev = F.pad(x, (0, 0, 1, -1))            # shift by one token along T, zero row in front
    return dict(out=(mu * x.float() + (1.0 - mu) * prev.float()).to(x.dtype))


TEST_SHAPES = [dict(B=1, T=1, D=1), dict(B=2, T=3, D=127), dict(B=3, T=17, D=131), dict(B=1, T=5, D=1031)]
BENCH_SHAPE = dict(B=8, T=4096, D=2048)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    n = shape["B"] * shape["T"] * shape["D"]
    return 4 * n, 2 * n * 2 + 4 * shape["D"]
