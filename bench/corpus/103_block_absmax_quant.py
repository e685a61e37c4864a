"""Per-block absmax int8 quantization along rows, blocks of 128 columns: for x [M, N] bf16,
scale[m, j] = max(max |x[m, 128j:128j+128]| / 127, 1e-12) (f32 [M, NB], NB = ceil(N / 128), the last
block ragged when 128 does not divide N) and q[m, n] = clamp(round_half_even(x[m, n] / scale[m, n // 128]),
-127, 127) as int8 [M, N].
"""
import numpy as np
import tessel
import tessel.language as T

BLOCK = 128


@tessel.kernel
def block_absmax_quant(x: T.In[T.bf16, ("M", "N")], q: T.Out[T.i8, ("M", "N")],
                       scale: T.Out[T.f32, ("M", "NB")]):
    M, N = x.shape
    NB = scale.shape[1]                       # ceil(N / BLOCK), not checked (no declared relations)
    cols = T.domain(0, N)
    for m, j in T.parallel(T.domain(0, M), T.domain(0, NB)):
        lo = j * BLOCK
        blk = cols[lo:T.minimum(lo + BLOCK, N)]
        xb = T.cast(x[m, blk], T.f32)
        s = T.maximum(T.max(T.abs(xb)) / 127.0, 1e-12)
        scale[m, j] = s
        q[m, blk] = T.cast(T.minimum(T.maximum(T.round(xb / s), -127.0), 127.0), T.i8)


KERNEL = block_absmax_quant


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    assert shape["NB"] == -(-N // BLOCK)
    x = rng.standard_normal((M, N)).astype(np.float32) * rng.uniform(0.01, 10.0, (M, 1)).astype(np.float32)
    if N >= 4:      # block 0 of row 0 has absmax 127, so scale 1 and exact halves: round half to even
        x[0, :4] = [127.0, 2.5, -3.5, 0.5]
    return dict(x=x)


def reference(x):
    M, N = x.shape
    NB = -(-N // BLOCK)
    x = x.astype(np.float32)
    scale = np.zeros((M, NB), np.float32)
    q = np.zeros((M, N), np.int8)
    for j in range(NB):
        xb = x[:, j * BLOCK:(j + 1) * BLOCK]
        s = np.maximum(np.abs(xb).max(axis=1) / np.float32(127), np.float32(1e-12)).astype(np.float32)
        scale[:, j] = s
        q[:, j * BLOCK:(j + 1) * BLOCK] = np.clip(np.rint(xb / s[:, None]), -127, 127).astype(np.int8)
    return {"q": q, "scale": scale}


def peer(x):
    import torch
    import torch.nn.functional as F
    M, N = x.shape
    NB = -(-N // BLOCK)
    xf = F.pad(x.float(), (0, NB * BLOCK - N)).view(M, NB, BLOCK)
    scale = (xf.abs().amax(-1) / 127).clamp_min(1e-12)
    q = torch.round(xf / scale[..., None]).clamp(-127, 127).to(torch.int8).view(M, NB * BLOCK)[:, :N]
    return {"q": q, "scale": scale}


def unrounded_q(x):
    """q as reference() computes it before rounding and clamping (bench/corpus.py's tie rule)."""
    M, N = x.shape
    x = x.astype(np.float32)
    u = np.zeros((M, N), np.float64)
    for j in range(-(-N // BLOCK)):
        xb = x[:, j * BLOCK:(j + 1) * BLOCK]
        s = np.maximum(np.abs(xb).max(axis=1) / np.float32(127), np.float32(1e-12)).astype(np.float32)
        u[:, j * BLOCK:(j + 1) * BLOCK] = xb / s[:, None]
    return u


UNROUNDED = {"q": unrounded_q}

TEST_SHAPES = [dict(M=1, N=1, NB=1), dict(M=3, N=129, NB=2), dict(M=5, N=256, NB=2), dict(M=2, N=401, NB=4)]
BENCH_SHAPE = dict(M=8192, N=7168, NB=56)
TOLERANCE = dict(rtol=1e-6, atol=0.0)
PEER = "torch.compile"


def OPS(shape):
    M, N, NB = shape["M"], shape["N"], shape["NB"]
    return 4 * M * N, M * N * (2 + 1) + M * NB * 4
