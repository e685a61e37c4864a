"""Dropout with a counter-based RNG (seeded, reproducible), bf16 [M, N] (16384 x 8192): element
(m, n) draws a uniform u in [0, 1) from Philox-4x32-10 keyed by the 64-bit seed, counter = flat index
m * N + n (as Triton's tl.rand: first output word, top 24 bits); it is kept (scaled by 1 / (1 - p))
when u >= p, else zeroed. Peer: F.dropout."""
import numpy as np
import tessel
import tessel.language as T

MASK32 = 0xFFFFFFFF
ROUND_A, ROUND_B = 0xD2511F53, 0xCD9E8D57
KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85


def philox4x32(c0, c1, c2, c3, k0, k1, rounds=10):
    """Philox-4x32 on 32-bit words held in i64 values (there are no unsigned types)."""
    for _ in range(rounds):
        p0 = c0 * ROUND_A
        p2 = c2 * ROUND_B
        c0, c1, c2, c3 = (((p2 >> 32) & MASK32) ^ c1 ^ k0, p2 & MASK32,
                          ((p0 >> 32) & MASK32) ^ c3 ^ k1, p0 & MASK32)
        k0 = (k0 + KEY_A) & MASK32
        k1 = (k1 + KEY_B) & MASK32
    return c0, c1, c2, c3


@tessel.kernel
def dropout(x: T.In[T.bf16, ("M", "N")],
            y: T.Out[T.bf16, ("M", "N")],
            p: T.f32,
            seed: T.i64):
    M, N = x.shape
    cols = T.domain(0, N)
    col = T.cast(T.indices(cols), T.i64)
    k0 = seed & MASK32
    k1 = (seed >> 32) & MASK32
    scale = 1.0 / (1.0 - p)
    for m in T.parallel(T.domain(0, M)):
        offset = T.cast(m * N, T.i64) + col
        zero = T.zeros(cols, T.i64)
        r0, _, _, _ = philox4x32(offset & MASK32, (offset >> 32) & MASK32, zero, zero, k0, k1)
        u = T.cast(r0 >> 8, T.f32) * (1.0 / 16777216.0)
        row = T.cast(x[m, cols], T.f32)
        y[m, cols] = T.cast(T.where(u >= p, row * scale, 0.0), T.bf16)


KERNEL = dropout


def inputs(shape, rng):
    return {"x": rng.standard_normal((shape["M"], shape["N"])).astype(np.float32),
            "p": 0.25, "seed": 0x1234_5678_9ABC}


def _uniform(M, N, seed):
    with np.errstate(over="ignore"):
        off = np.arange(M * N, dtype=np.uint64).reshape(M, N)
        m32 = np.uint64(MASK32)
        c = [off & m32, off >> np.uint64(32), np.zeros_like(off), np.zeros_like(off)]
        k0, k1 = np.uint64(seed & MASK32), np.uint64((seed >> 32) & MASK32)
        for _ in range(10):
            p0 = c[0] * np.uint64(ROUND_A)
            p2 = c[2] * np.uint64(ROUND_B)
            c = [(p2 >> np.uint64(32)) ^ c[1] ^ k0, p2 & m32, (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & m32]
            k0 = (k0 + np.uint64(KEY_A)) & m32
            k1 = (k1 + np.uint64(KEY_B)) & m32
    return (c[0] >> np.uint64(8)).astype(np.float64) / 16777216.0


def reference(x, p, seed):
    u = _uniform(x.shape[0], x.shape[1], seed)
    scale = float(np.float32(1.0) / (np.float32(1.0) - np.float32(p)))
    return {"y": np.where(u >= np.float32(p), x.astype(np.float64) * scale, 0.0)}


def peer(x, p, seed):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(seed)
    return {"y": F.dropout(x, p, training=True)}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=5, N=4099)]
BENCH_SHAPE = dict(M=16384, N=8192)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
BENCH_TOLERANCE = dict(rtol=0.0, atol=1e6)   # the peer draws torch's own random stream: masks differ by design
PEER = "F.dropout"


def OPS(shape):
    n = shape["M"] * shape["N"]
    return 60 * n, 4 * n
