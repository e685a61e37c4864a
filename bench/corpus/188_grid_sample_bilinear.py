"""2-D bilinear grid sampling (F.grid_sample, mode='bilinear', padding_mode='zeros',
align_corners=False): input [N, C, H, W] f32, grid [N, Ho, Wo, 2] f32 of (x, y) in [-1, 1]
(x indexes W, y indexes H; pixel coordinate ix = ((x + 1) * W - 1) / 2), out [N, C, Ho, Wo] f32; corners
outside the image read 0. N=8 C=64 H=W=128 Ho=Wo=128. Peer: torch.compile (F.grid_sample)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def corner(inp, n, c, yi, xi, H, W):
    """inp[n, c, yi, xi] (i32 index tensors over the output columns), 0 outside the image."""
    ok = (xi >= 0) & (xi < T.cast(W, T.i32)) & (yi >= 0) & (yi < T.cast(H, T.i32))
    yc = T.minimum(T.maximum(yi, 0), T.cast(H, T.i32) - 1)
    xc = T.minimum(T.maximum(xi, 0), T.cast(W, T.i32) - 1)
    return T.load(inp, (n, c, yc, xc), valid=ok, fill=0.0)


@tessel.kernel
def grid_sample_bilinear(inp: T.In[T.f32, ("N", "C", "H", "W")],
                         grid: T.In[T.f32, ("N", "Ho", "Wo", 2)],
                         out: T.Out[T.f32, ("N", "C", "Ho", "Wo")]):
    N, C, H, W = inp.shape
    Ho, Wo = grid.shape[1], grid.shape[2]
    ocols = T.domain(0, Wo)
    for n, c, oh in T.parallel(T.domain(0, N), T.domain(0, C), T.domain(0, Ho)):
        gx = grid[n, oh, ocols, 0]
        gy = grid[n, oh, ocols, 1]
        ix = ((gx + 1.0) * T.cast(W, T.f32) - 1.0) * 0.5
        iy = ((gy + 1.0) * T.cast(H, T.f32) - 1.0) * 0.5
        x0f, y0f = T.floor(ix), T.floor(iy)
        wx1, wy1 = ix - x0f, iy - y0f
        wx0, wy0 = 1.0 - wx1, 1.0 - wy1
        x0, y0 = T.cast(x0f, T.i32), T.cast(y0f, T.i32)
        x1, y1 = x0 + 1, y0 + 1
        v = (corner(inp, n, c, y0, x0, H, W) * (wy0 * wx0) + corner(inp, n, c, y0, x1, H, W) * (wy0 * wx1)
             + corner(inp, n, c, y1, x0, H, W) * (wy1 * wx0) + corner(inp, n, c, y1, x1, H, W) * (wy1 * wx1))
        out[n, c, oh, ocols] = v


KERNEL = grid_sample_bilinear
CONSTEXPRS = {}


def inputs(shape, rng):
    N, C, H, W, Ho, Wo = (shape[k] for k in ("N", "C", "H", "W", "Ho", "Wo"))
    return dict(inp=rng.standard_normal((N, C, H, W)).astype(np.float32),
                grid=rng.uniform(-1.1, 1.1, size=(N, Ho, Wo, 2)).astype(np.float32))


def reference(inp, grid):
    N, C, H, W = inp.shape
    x = inp.astype(np.float64)
    ix = ((grid[..., 0].astype(np.float64) + 1.0) * W - 1.0) / 2.0      # [N, Ho, Wo]
    iy = ((grid[..., 1].astype(np.float64) + 1.0) * H - 1.0) / 2.0
    x0, y0 = np.floor(ix), np.floor(iy)
    out = np.zeros((N, C) + ix.shape[1:])
    nn = np.arange(N)[:, None, None]
    for yy, wy in ((y0, 1.0 - (iy - y0)), (y0 + 1, iy - y0)):
        for xx, wx in ((x0, 1.0 - (ix - x0)), (x0 + 1, ix - x0)):
            ok = (xx >= 0) & (xx < W) & (yy >= 0) & (yy < H)
            yc = np.clip(yy, 0, H - 1).astype(np.int64)
            xc = np.clip(xx, 0, W - 1).astype(np.int64)
            v = x[nn, :, yc, xc]                                         # [N, Ho, Wo, C]
            out += np.moveaxis(np.where(ok[..., None], v, 0.0) * (wy * wx)[..., None], -1, 1)
    return dict(out=out)


def peer(inp, grid):
    import torch.nn.functional as F
    return dict(out=F.grid_sample(inp, grid, mode="bilinear", padding_mode="zeros", align_corners=False))


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1, Ho=1, Wo=1), dict(N=2, C=3, H=5, W=7, Ho=3, Wo=11),
               dict(N=1, C=2, H=17, W=13, Ho=19, Wo=23), dict(N=2, C=5, H=31, W=67, Ho=7, Wo=131)]
BENCH_SHAPE = dict(N=8, C=64, H=128, W=128, Ho=128, Wo=128)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    N, C, H, W, Ho, Wo = (shape[k] for k in ("N", "C", "H", "W", "Ho", "Wo"))
    return 8 * N * C * Ho * Wo, 4 * (N * C * H * W + 2 * N * Ho * Wo + N * C * Ho * Wo)
