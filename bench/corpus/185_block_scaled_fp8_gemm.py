"""Block-scaled FP8 GEMM (DeepSeek-V3 style): a [M, K] e4m3 with scales sa [M, K/128] (one per 1x128 block
of a row), b [N, K] e4m3 with scales sb [ceil(N/128), K/128] (one per 128x128 block);
out[m, n] = sum over K blocks kb of (sum within the block of a[m, k] * b[n, k]) * sa[m, kb] * sb[n // 128, kb],
bf16 out [M, N]. K is a multiple of 128. M=4096 N=7168 K=4096. Peer: torch.compile (dequantize to f32 per
block, then matmul)."""
import numpy as np
import tessel
import tessel.language as T

BLK = 128


@tessel.kernel
def block_scaled_fp8_gemm(a: T.In[T.f8e4m3, ("M", "K")], b: T.In[T.f8e4m3, ("N", "K")],
                          sa: T.In[T.f32, ("M", "KB")],          # KB = K / 128
                          sb: T.In[T.f32, ("NB", "KB")],         # NB = ceil(N / 128)
                          out: T.Out[T.bf16, ("M", "N")]):
    M, K = a.shape
    N = b.shape[0]
    KB = sa.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    col_blk = T.indices(cols) // BLK
    acc = T.full((rows, cols), 0.0, T.f32)
    for kb in T.domain(0, KB):
        kk = ks[kb * BLK:kb * BLK + BLK]
        part = T.matmul(a[rows, kk], b[cols, kk], transpose_rhs=True, acc_dtype=T.f32)
        acc = acc + part * sa[rows, kb] * sb[col_blk, kb]
    out[rows, cols] = T.cast(acc, T.bf16)


KERNEL = block_scaled_fp8_gemm
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    assert K % BLK == 0 and shape["KB"] == K // BLK and shape["NB"] == -(-N // BLK)
    return dict(a=(rng.standard_normal((M, K)) * 4.0).astype(np.float32),      # rounded to e4m3
                b=(rng.standard_normal((N, K)) * 4.0).astype(np.float32),
                sa=(rng.random((M, shape["KB"])) * 0.1 + 0.01).astype(np.float32),
                sb=(rng.random((shape["NB"], shape["KB"])) * 0.1 + 0.01).astype(np.float32))


def reference(a, b, sa, sb):
    M, K = a.shape
    N = b.shape[0]
    out = np.zeros((M, N))
    for kb in range(K // BLK):
        blk = slice(kb * BLK, (kb + 1) * BLK)
        part = a[:, blk].astype(np.float64) @ b[:, blk].astype(np.float64).T
        out += part * sa[:, kb][:, None] * sb[np.arange(N) // BLK, kb][None, :]
    return dict(out=out)


def peer(a, b, sa, sb):
    import torch
    N = b.shape[0]
    af = a.float() * sa.repeat_interleave(BLK, dim=1)
    bf = b.float() * sb.repeat_interleave(BLK, dim=1).repeat_interleave(BLK, dim=0)[:N]
    return dict(out=(af @ bf.t()).to(torch.bfloat16))


def _shape(M, N, K):
    return dict(M=M, N=N, K=K, KB=K // BLK, NB=-(-N // BLK))


TEST_SHAPES = [_shape(1, 1, 128), _shape(3, 17, 256), _shape(37, 131, 128), _shape(67, 257, 384)]
BENCH_SHAPE = _shape(4096, 7168, 4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, M * K + N * K + 2 * M * N + 4 * (M + shape["NB"]) * shape["KB"]
