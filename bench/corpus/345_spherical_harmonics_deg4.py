"""Spherical-harmonics encoding of degree 4 (the 16 view-direction features of NeRF-style encoders and 3D
Gaussian splatting): unit directions d f32 [N, 3] -> the 16 real SH basis values for l = 0..3 (the
standard real SH polynomials in x, y, z with their constant factors, in 3DGS's order and signs:
C0; -C1 y, C1 z, -C1 x; C2 xy, -C2 yz, C2' (2z^2 - x^2 - y^2), -C2 xz, C2/2 (x^2 - y^2); the seven l = 3
terms), computed in f32 and stored f16 [N, 16]. N 2^22. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T

C0 = 0.28209479177387814
C1 = 0.4886025119029199
C2 = (1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396)
C3 = (-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658,
      1.445305721320277, -0.5900435899266435)


def _basis(x, y, z, full):
    """The 16 values, in order (shared by the kernel, the reference and the peer)."""
    xx, yy, zz = x * x, y * y, z * z
    return [full(C0), -C1 * y, C1 * z, -C1 * x,
            C2[0] * (x * y), C2[1] * (y * z), C2[2] * (2.0 * zz - xx - yy), C2[3] * (x * z),
            C2[4] * (xx - yy),
            C3[0] * y * (3.0 * xx - yy), C3[1] * (x * y) * z, C3[2] * y * (4.0 * zz - xx - yy),
            C3[3] * z * (2.0 * zz - 3.0 * xx - 3.0 * yy), C3[4] * x * (4.0 * zz - xx - yy),
            C3[5] * z * (xx - yy), C3[6] * x * (xx - 3.0 * yy)]


@tessel.kernel
def sh_encode(d: T.In[T.f32, ("N", 3)], sh: T.Out[T.f16, ("N", 16)]):
    N = d.shape[0]
    pts = T.domain(0, N)
    x, y, z = d[pts, 0], d[pts, 1], d[pts, 2]
    vals = _basis(x, y, z, lambda c: T.full((pts,), c, T.f32))
    for i, v in enumerate(vals):
        sh[pts, i] = T.cast(v, T.f16)


KERNEL = sh_encode


def inputs(shape, rng):
    v = rng.standard_normal((shape["N"], 3))
    v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
    return dict(d=v.astype(np.float32))


def reference(d):
    x, y, z = (d[:, a].astype(np.float64) for a in range(3))
    vals = _basis(x, y, z, lambda c: np.full(x.shape, c))
    return dict(sh=np.stack(vals, axis=1).astype(np.float16))


def peer(d):
    import torch
    x, y, z = d[:, 0], d[:, 1], d[:, 2]
    vals = _basis(x, y, z, lambda c: torch.full_like(x, c))
    return dict(sh=torch.stack(vals, dim=1).to(torch.float16))


def OPS(shape):
    return 60 * shape["N"], 12 * shape["N"] + 32 * shape["N"]


TEST_SHAPES = [dict(N=0), dict(N=1), dict(N=127), dict(N=1031)]
BENCH_SHAPE = dict(N=1 << 22)
TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "torch.compile"
