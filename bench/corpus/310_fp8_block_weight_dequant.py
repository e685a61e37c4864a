"""Dequantization of a block-scaled FP8 weight (DeepSeek-V3's weight_dequant, as its inference code and
checkpoint converters run it to get bf16 weights, and as FP8 training gathers a master copy): the weight
w float8_e4m3fn [M, N] carries one f32 scale per 128 x 128 block, s f32 [ceil(M / 128), ceil(N / 128)]
(the last blocks partial), and y[i, j] = w[i, j] * s[i // 128, j // 128] rounded once to bf16 [M, N].
M18432 N7168 (a DeepSeek-V3 MoE up-projection). Peer: torch.compile of the scale tensor expanded by
repeat_interleave and multiplied."""
import numpy as np
import tessel
import tessel.language as T

BLOCK = 128


@tessel.kernel
def fp8_block_weight_dequant(w: T.In[T.f8e4m3, ("M", "N")], s: T.In[T.f32, ("MB", "NB")],
                             y: T.Out[T.bf16, ("M", "N")]):
    M, N = w.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    scale = s[T.indices(rows) // BLOCK, T.indices(cols) // BLOCK]
    y[rows, cols] = T.cast(T.cast(w[rows, cols], T.f32) * scale, T.bf16)


KERNEL = fp8_block_weight_dequant


def inputs(shape, rng):
    M, N, MB, NB = shape["M"], shape["N"], shape["MB"], shape["NB"]
    assert MB == -(-M // BLOCK) and NB == -(-N // BLOCK)
    return dict(w=(rng.standard_normal((M, N)) * 100.0).astype(np.float32),      # rounded to e4m3 by the harness
                s=(rng.random((MB, NB)) * 1e-3 + 1e-5).astype(np.float32))


def reference(w, s):
    sc = np.repeat(np.repeat(s, BLOCK, axis=0), BLOCK, axis=1)[:w.shape[0], :w.shape[1]]
    return dict(y=w.astype(np.float32) * sc)


def peer(w, s):
    import torch
    M, N = w.shape
    sc = s.repeat_interleave(BLOCK, 0)[:M].repeat_interleave(BLOCK, 1)[:, :N]
    return dict(y=(w.float() * sc).to(torch.bfloat16))


def OPS(shape):
    n = shape["M"] * shape["N"]
    return n, 3 * n


TEST_SHAPES = [dict(M=1, N=1, MB=1, NB=1), dict(M=130, N=129, MB=2, NB=2), dict(M=257, N=131, MB=3, NB=2)]
BENCH_SHAPE = dict(M=18432, N=7168, MB=144, NB=56)
TOLERANCE = dict(rtol=8e-3, atol=1e-6)
PEER = "torch.compile"
