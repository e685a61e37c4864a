"""LoRA forward: Y = X·W + s·(X·A)·B, X [M,K], W [K,N], A [K,16], B [16,N], Y [M,N], all bf16,
s a runtime f32 scalar (f32 accumulation; X·A is rounded to bf16 before the second product, as
torch does). Realistic size M=8192, N=4096, K=4096, rank 16. Peer: torch.compile."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def lora_forward(x: T.In[T.bf16, ("M", "K")], w: T.In[T.bf16, ("K", "N")],
                 a: T.In[T.bf16, ("K", 16)], b: T.In[T.bf16, (16, "N")],
                 y: T.Out[T.bf16, ("M", "N")], s: T.f32):
    M, K = x.shape
    N = w.shape[1]
    rows, cols, ks, rank = T.domain(0, M), T.domain(0, N), T.domain(0, K), T.domain(0, 16)
    xt = x[rows, ks]
    base = T.matmul(xt, w[ks, cols], acc_dtype=T.f32)
    xa = T.cast(T.matmul(xt, a[ks, rank], acc_dtype=T.f32), T.bf16)
    delta = T.matmul(xa, b[rank, cols], acc_dtype=T.f32)
    y[rows, cols] = T.cast(base + s * delta, T.bf16)


KERNEL = lora_forward


def _bf16(a):
    """Round float32 to bfloat16 (nearest even), returned as float64."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(
        x=rng.standard_normal((M, K)).astype(np.float32),
        w=(rng.standard_normal((K, N)) / math.sqrt(K)).astype(np.float32),
        a=(rng.standard_normal((K, 16)) / math.sqrt(K)).astype(np.float32),
        b=(rng.standard_normal((16, N)) / 4.0).astype(np.float32),
        s=0.5,
    )


def reference(x, w, a, b, s):
    x, w, a, b = _bf16(x), _bf16(w), _bf16(a), _bf16(b)
    return dict(y=x @ w + s * ((x @ a) @ b))


def peer(x, w, a, b, s):
    return dict(y=x @ w + s * ((x @ a) @ b))


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=17, K=5), dict(M=17, N=67, K=31),
               dict(M=29, N=131, K=97)]
BENCH_SHAPE = dict(M=8192, N=4096, K=4096)
TOLERANCE = dict(rtol=1e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K + 2 * M * 16 * (K + N), 2 * (M * K + K * N + 16 * (K + N) + M * N)
