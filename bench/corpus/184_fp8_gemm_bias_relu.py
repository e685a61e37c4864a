"""FP8 GEMM with per-row/per-column scales, bias and ReLU: out = relu((a @ b^T) * sa[:, None] * sb[None, :]
+ bias) with a [M, K] and b [N, K] float8 e4m3, sa [M], sb [N], bias [N] f32, out [M, N] bf16.
M=N=K=4096. Peer: torch._scaled_mm (row-wise scales) + bias + relu."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def fp8_gemm_bias_relu(a: T.In[T.f8e4m3, ("M", "K")], b: T.In[T.f8e4m3, ("N", "K")],
                       sa: T.In[T.f32, ("M",)], sb: T.In[T.f32, ("N",)], bias: T.In[T.f32, ("N",)],
                       out: T.Out[T.bf16, ("M", "N")]):
    M, K = a.shape
    N = b.shape[0]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(a[rows, ks], b[cols, ks], transpose_rhs=True, acc_dtype=T.f32)
    out[rows, cols] = T.cast(T.relu(acc * sa[rows] * sb[cols] + bias[cols]), T.bf16)


KERNEL = fp8_gemm_bias_relu
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return dict(a=(rng.standard_normal((M, K)) * 4.0).astype(np.float32),      # rounded to e4m3
                b=(rng.standard_normal((N, K)) * 4.0).astype(np.float32),
                sa=(rng.random(M) * 0.1 + 0.01).astype(np.float32),
                sb=(rng.random(N) * 0.1 + 0.01).astype(np.float32),
                bias=rng.standard_normal(N).astype(np.float32))


def reference(a, b, sa, sb, bias):
    acc = a.astype(np.float64) @ b.astype(np.float64).T
    return dict(out=np.maximum(acc * sa[:, None] * sb[None, :] + bias[None, :], 0.0))


def peer(a, b, sa, sb, bias):
    import torch
    acc = torch._scaled_mm(a, b.t(), scale_a=sa[:, None].contiguous(), scale_b=sb[None, :].contiguous(),
                           out_dtype=torch.bfloat16)
    return dict(out=torch.relu(acc.float() + bias).to(torch.bfloat16))


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=17, K=31), dict(M=37, N=67, K=131),
               dict(M=129, N=130, K=257)]
BENCH_SHAPE = dict(M=4096, N=4096, K=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch._scaled_mm + bias + relu"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, M * K + N * K + 2 * M * N + 4 * (M + 2 * N)
