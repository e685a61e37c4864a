"""Batched matmul with a bias and ReLU: out[b] = relu(x[b] @ w[b] + bias), x [B, M, K], w [B, K, N] f16,
bias [N] f32, out f16 (f32 accumulation). B=64 M=N=K=512. Peer: torch.compile of
relu(torch.bmm(x, w) + bias)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def bmm_bias_relu(x: T.In[T.f16, ("B", "M", "K")], w: T.In[T.f16, ("B", "K", "N")],
                  bias: T.In[T.f32, ("N",)], out: T.Out[T.f16, ("B", "M", "N")]):
    B, M, K = x.shape
    N = w.shape[2]
    bs, rows, ks, cols = T.domain(0, B), T.domain(0, M), T.domain(0, K), T.domain(0, N)
    acc = T.matmul(x[bs, rows, ks], w[bs, ks, cols], init=bias[cols])     # f32 [B, M, N]
    out[bs, rows, cols] = T.cast(T.relu(acc), T.f16)


KERNEL = bmm_bias_relu
CONSTEXPRS = {}


def inputs(shape, rng):
    B, M, K, N = (shape[n] for n in ("B", "M", "K", "N"))
    return dict(x=rng.standard_normal((B, M, K)).astype(np.float16),
                w=(rng.standard_normal((B, K, N)) / np.sqrt(K)).astype(np.float16),
                bias=rng.standard_normal(N).astype(np.float32))


def reference(x, w, bias):
    acc = np.matmul(x.astype(np.float64), w.astype(np.float64)) + bias.astype(np.float64)
    return dict(out=np.maximum(acc, 0.0))


def peer(x, w, bias):
    import torch
    return dict(out=torch.relu(torch.bmm(x, w) + bias).to(x.dtype))


TEST_SHAPES = [dict(B=1, M=1, K=1, N=1), dict(B=3, M=7, K=13, N=5), dict(B=2, M=37, K=67, N=131),
               dict(B=5, M=64, K=128, N=17)]
BENCH_SHAPE = dict(B=64, M=512, K=512, N=512)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    B, M, K, N = (shape[n] for n in ("B", "M", "K", "N"))
    return 2 * B * M * N * K, 2 * B * (M * K + K * N + M * N) + 4 * N
