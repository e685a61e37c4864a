"""Decode-time GEMV against NF4 4-bit weights: W packed [N, K/2] uint8 (low nibble = even k, high nibble
= odd k), each nibble an index into a 16-entry f32 code table; one f32 absmax scale per block of 64
consecutive k of a row, scale [N, K/64]; w[n, k] = table[code] * scale[n, k // 64]; y [N] f32 = W @ x
for x [K] bf16. N=11008 K=4096. Peer: torch.compile of dequantize-then-matvec (bitsandbytes' reference
path)."""
import numpy as np
import tessel
import tessel.language as T

NF4 = np.array([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
                -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
                0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
                0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0], dtype=np.float32)


@tessel.kernel
def nf4_gemv(wq: T.In[T.i8, ("N", "K2")], table: T.In[T.f32, (16,)], scale: T.In[T.f32, ("N", "KB")],
             x: T.In[T.bf16, ("K",)], y: T.Out[T.f32, ("N",)]):
    N, K2 = wq.shape                          # K == 2 * K2, KB == K // 64 (asserted by the caller)
    pairs = T.domain(0, K2)
    j = T.indices(pairs)
    xe = T.cast(x[2 * j], T.f32)              # x at the even k of each byte
    xo = T.cast(x[2 * j + 1], T.f32)          # and at the odd k
    for n in T.parallel(T.domain(0, N)):
        byte = T.cast(wq[n, pairs], T.i32) & 0xFF
        s = scale[n, (2 * j) // 64]           # both nibbles of a byte lie in one block of 64
        w_even = table[byte & 0xF] * s
        w_odd = table[byte >> 4] * s
        y[n] = T.sum(w_even * xe + w_odd * xo)


KERNEL = nf4_gemv
CONSTEXPRS = {}


def inputs(shape, rng):
    N, K, K2, KB = (shape[n] for n in ("N", "K", "K2", "KB"))
    assert K == 2 * K2 and KB == K // 64
    codes = rng.integers(0, 16, size=(N, K)).astype(np.uint8)
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8).view(np.int8)
    return dict(wq=packed, table=NF4.copy(),
                scale=rng.uniform(0.01, 0.1, size=(N, KB)).astype(np.float32),
                x=rng.standard_normal(K).astype(np.float32))


def _dequant(wq, table, scale):
    b = wq.view(np.uint8).astype(np.int64)
    codes = np.empty((b.shape[0], 2 * b.shape[1]), np.int64)
    codes[:, 0::2], codes[:, 1::2] = b & 0xF, b >> 4
    return table.astype(np.float64)[codes] * np.repeat(scale.astype(np.float64), 64, axis=1)[:, :codes.shape[1]]


def reference(wq, table, scale, x):
    return dict(y=_dequant(wq, table, scale) @ x.astype(np.float64))


def peer(wq, table, scale, x):
    import torch
    b = wq.view(torch.uint8).long()
    codes = torch.stack((b & 0xF, b >> 4), dim=-1).flatten(-2)
    w = table[codes] * scale.repeat_interleave(64, dim=1)[:, :codes.shape[1]]
    return dict(y=w @ x.float())


def _shape(N, K):
    return dict(N=N, K=K, K2=K // 2, KB=K // 64)


TEST_SHAPES = [_shape(1, 64), _shape(3, 128), _shape(17, 640), _shape(131, 192)]
BENCH_SHAPE = _shape(11008, 4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    N, K = shape["N"], shape["K"]
    return 2 * N * K, N * K // 2 + 4 * N * K // 64 + 2 * K + 4 * N
