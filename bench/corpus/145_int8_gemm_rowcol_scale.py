"""Matrix multiply with per-row scaling of A and per-column scaling of B (int8 weight, dynamic activation scales): out[m, n] = sa[m] * sb[n] * sum_k A[m, k] * B[k, n], A and B int8, sa sb f32, out bf16 (int32 accumulate). M4096 N4096 K4096. Peer: torch._int_mm then scale (or float matmul of the casts; document which)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def int8_gemm_rowcol_scale(a: T.In[T.i8, ("M", "K")], b: T.In[T.i8, ("K", "N")],
                           sa: T.In[T.f32, ("M",)], sb: T.In[T.f32, ("N",)],
                           out: T.Out[T.bf16, ("M", "N")]):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.i32)
    out[rows, cols] = T.cast(T.cast(acc, T.f32) * sa[rows] * sb[cols], T.bf16)


KERNEL = int8_gemm_rowcol_scale


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(a=rng.integers(-128, 128, (M, K)).astype(np.int8),
                b=rng.integers(-128, 128, (K, N)).astype(np.int8),
                sa=rng.uniform(0.001, 0.02, M).astype(np.float32),
                sb=rng.uniform(0.001, 0.02, N).astype(np.float32))


def reference(a, b, sa, sb):
    acc = a.astype(np.int64) @ b.astype(np.int64)
    out = acc.astype(np.float32) * sa[:, None] * sb[None, :]
    return {"out": _bf16(out.astype(np.float32))}


def peer(a, b, sa, sb):
    # torch._int_mm (int8 x int8 -> int32 on the tensor cores), then the scales in f32
    import torch
    acc = torch._int_mm(a, b)
    return {"out": (acc.float() * sa[:, None] * sb[None, :]).to(torch.bfloat16)}


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, M * K + K * N + 4 * (M + N) + 2 * M * N


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=17, K=127), dict(M=37, N=65, K=131)]
BENCH_SHAPE = dict(M=4096, N=4096, K=4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch._int_mm then scale"
