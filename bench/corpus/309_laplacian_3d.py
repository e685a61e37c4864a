"""3-D 7-point Laplacian with zero (Dirichlet) boundary, the stencil of physics-informed and neural-operator
training losses and of diffusion / Poisson solvers on voxel grids: for each volume b of u f32 [B, D, H, W],
out[b, z, y, x] = (u[z-1] + u[z+1] + u[y-1] + u[y+1] + u[x-1] + u[x+1] - 6 u[z, y, x]) * inv_h2 (the six
face neighbours along each axis, a neighbour outside the grid counting as 0; inv_h2 = 1 / h^2 a runtime
f32). B4 D256 H256 W256. Peer: torch.compile of the padded-slice formula (F.pad, then six shifted slices)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def laplacian_3d(u: T.In[T.f32, ("B", "D", "H", "W")], out: T.Out[T.f32, ("B", "D", "H", "W")], inv_h2: T.f32):
    B, D, H, W = u.shape
    xs = T.domain(0, W)
    xi = T.indices(xs)
    for b, z, y in T.parallel(T.domain(0, B), T.domain(0, D), T.domain(0, H)):
        c = u[b, z, y, xs]
        west = T.load(u, (b, z, y, xi - 1), valid=xi >= 1, fill=0.0)
        east = T.load(u, (b, z, y, xi + 1), valid=xi + 1 < W, fill=0.0)
        north = T.load(u, (b, z, y - 1, xs), valid=T.full_like(c, y >= 1), fill=0.0)
        south = T.load(u, (b, z, y + 1, xs), valid=T.full_like(c, y + 1 < H), fill=0.0)
        below = T.load(u, (b, z - 1, y, xs), valid=T.full_like(c, z >= 1), fill=0.0)
        above = T.load(u, (b, z + 1, y, xs), valid=T.full_like(c, z + 1 < D), fill=0.0)
        out[b, z, y, xs] = (west + east + north + south + below + above - 6.0 * c) * inv_h2


KERNEL = laplacian_3d


def inputs(shape, rng):
    s = tuple(shape[k] for k in ("B", "D", "H", "W"))
    return dict(u=rng.standard_normal(s).astype(np.float32), inv_h2=4.0)


def reference(u, inv_h2):
    p = np.pad(u.astype(np.float64), ((0, 0), (1, 1), (1, 1), (1, 1)))
    c = p[:, 1:-1, 1:-1, 1:-1]
    lap = (p[:, :-2, 1:-1, 1:-1] + p[:, 2:, 1:-1, 1:-1] + p[:, 1:-1, :-2, 1:-1] + p[:, 1:-1, 2:, 1:-1]
           + p[:, 1:-1, 1:-1, :-2] + p[:, 1:-1, 1:-1, 2:] - 6.0 * c)
    return dict(out=lap * inv_h2)


def peer(u, inv_h2):
    import torch.nn.functional as F
    p = F.pad(u, (1, 1, 1, 1, 1, 1))
    c = p[:, 1:-1, 1:-1, 1:-1]
    lap = (p[:, :-2, 1:-1, 1:-1] + p[:, 2:, 1:-1, 1:-1] + p[:, 1:-1, :-2, 1:-1] + p[:, 1:-1, 2:, 1:-1]
           + p[:, 1:-1, 1:-1, :-2] + p[:, 1:-1, 1:-1, 2:] - 6.0 * c)
    return dict(out=lap * inv_h2)


def OPS(shape):
    n = shape["B"] * shape["D"] * shape["H"] * shape["W"]
    return 8 * n, 8 * n


TEST_SHAPES = [dict(B=1, D=1, H=1, W=1), dict(B=1, D=3, H=5, W=7), dict(B=1, D=5, H=13, W=37)]
BENCH_SHAPE = dict(B=4, D=256, H=256, W=256)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"
