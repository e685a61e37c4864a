"""Complex pointwise multiply by a conjugate (the spectral product of an FFT convolution or
cross-correlation): a, b f32 [B, N, 2] (last axis real, imaginary), c = a * conj(b) per element, f32
[B, N, 2]: c.re = a.re b.re + a.im b.im, c.im = a.im b.re - a.re b.im. B64 N 2^17. Peer:
torch.compile(view_as_complex mul)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def complex_mul_conj(a: T.In[T.f32, ("B", "N", 2)], b: T.In[T.f32, ("B", "N", 2)],
                     c: T.Out[T.f32, ("B", "N", 2)]):
    B, N = a.shape[0], a.shape[1]
    bs, ns = T.domain(0, B), T.domain(0, N)
    ar, ai = a[bs, ns, 0], a[bs, ns, 1]
    br, bi = b[bs, ns, 0], b[bs, ns, 1]
    c[bs, ns, 0] = ar * br + ai * bi
    c[bs, ns, 1] = ai * br - ar * bi


KERNEL = complex_mul_conj


def inputs(shape, rng):
    B, N = shape["B"], shape["N"]
    return dict(a=rng.standard_normal((B, N, 2)).astype(np.float32),
                b=rng.standard_normal((B, N, 2)).astype(np.float32))


def reference(a, b):
    za = a[..., 0].astype(np.float64) + 1j * a[..., 1].astype(np.float64)
    zb = b[..., 0].astype(np.float64) + 1j * b[..., 1].astype(np.float64)
    z = za * np.conj(zb)
    return dict(c=np.stack([z.real, z.imag], axis=-1))


def peer(a, b):
    import torch
    z = torch.view_as_complex(a) * torch.view_as_complex(b).conj()
    return dict(c=torch.view_as_real(z))


def OPS(shape):
    B, N = shape["B"], shape["N"]
    return 6 * B * N, 24 * B * N


TEST_SHAPES = [dict(B=0, N=3), dict(B=1, N=1), dict(B=3, N=7), dict(B=5, N=131), dict(B=2, N=1031)]
BENCH_SHAPE = dict(B=64, N=2 ** 17)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"
