"""Polynomial evaluation by Horner's rule with P runtime-given coefficients c [P] f32 at every element of
x [N] f32: y = c[0] + x*(c[1] + x*(c[2] + ... + x*c[P-1])), P a runtime size (P=0 gives 0). N=2^26 P=16.
Peer: torch.compile (the same Horner loop over the coefficients in Python)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def horner_polynomial(x: T.In[T.f32, ("N",)], c: T.In[T.f32, ("P",)], y: T.Out[T.f32, ("N",)]):
    N = x.shape[0]
    P = c.shape[0]
    elems = T.domain(0, N)
    xs = x[elems]
    acc = T.zeros(elems)
    for j in T.domain(0, P):
        acc = acc * xs + c[P - 1 - j]
    y[elems] = acc


KERNEL = horner_polynomial
CONSTEXPRS = {}


def inputs(shape, rng):
    N, P = shape["N"], shape["P"]
    return dict(x=rng.uniform(-1.5, 1.5, size=N).astype(np.float32),
                c=(rng.standard_normal(P) / np.arange(1, P + 1)).astype(np.float32))


def reference(x, c):
    acc = np.zeros(x.shape[0])
    xd = x.astype(np.float64)
    for cj in c[::-1].astype(np.float64):
        acc = acc * xd + cj
    return dict(y=acc)


def peer(x, c):
    acc = x.new_zeros(x.shape)
    for j in range(c.shape[0] - 1, -1, -1):
        acc = acc * x + c[j]
    return dict(y=acc)


TEST_SHAPES = [dict(N=1, P=1), dict(N=7, P=0), dict(N=127, P=3), dict(N=1031, P=16), dict(N=4099, P=5)]
BENCH_SHAPE = dict(N=1 << 26, P=16)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    N, P = shape["N"], shape["P"]
    return 2 * N * P, 8 * N + 4 * P
