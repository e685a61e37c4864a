"""One direction of the Chamfer distance: for each point of cloud A [B, N, 3] f32 the squared Euclidean
distance to its nearest point of cloud B [B, M, 3]; out [B, N] f32. B=8 N=M=8192.
Peer: torch.compile of torch.cdist(a, b).square().amin(-1) (pytorch3d's knn_points K=1 is the CUDA
alternative)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def chamfer_distance(a: T.In[T.f32, ("B", "N", 3)], b: T.In[T.f32, ("B", "M", 3)],
                     out: T.Out[T.f32, ("B", "N")]):
    B, N = a.shape[0], a.shape[1]
    pts = T.domain(0, b.shape[1])
    for bb, i in T.parallel(T.domain(0, B), T.domain(0, N)):
        dx = b[bb, pts, 0] - a[bb, i, 0]
        dy = b[bb, pts, 1] - a[bb, i, 1]
        dz = b[bb, pts, 2] - a[bb, i, 2]
        out[bb, i] = T.min(dx * dx + dy * dy + dz * dz)


KERNEL = chamfer_distance
CONSTEXPRS = {}


def inputs(shape, rng):
    B, N, M = shape["B"], shape["N"], shape["M"]
    return dict(a=rng.standard_normal((B, N, 3)).astype(np.float32),
                b=rng.standard_normal((B, M, 3)).astype(np.float32))


def reference(a, b):
    d = a.astype(np.float64)[:, :, None, :] - b.astype(np.float64)[:, None, :, :]
    return dict(out=(d * d).sum(-1).min(-1))


def peer(a, b):
    import torch
    d = a[:, :, None, :] - b[:, None, :, :]       # exact differences, as the kernel (cdist's matmul
    return dict(out=(d * d).sum(-1).amin(-1))     # form cancels badly for near points)


TEST_SHAPES = [dict(B=1, N=1, M=1), dict(B=2, N=7, M=13), dict(B=3, N=131, M=67), dict(B=1, N=37, M=1031)]
BENCH_SHAPE = dict(B=8, N=8192, M=8192)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    B, N, M = shape["B"], shape["N"], shape["M"]
    return 9 * B * N * M, 12 * B * (N + M) + 4 * B * N
