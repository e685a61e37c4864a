"""Classifier head with softmax: probs = softmax(x @ W^T + b, over the last axis) for x [M, K] f16,
W [N, K] f16 (N=256 classes), b [N] f32, probs [M, N] f16. M=32768 K=1024 N=256.
Peer: torch.compile (torch.softmax(F.linear(x, W, b), -1))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gemm_row_softmax(x: T.In[T.f16, ("M", "K")], w: T.In[T.f16, ("N", "K")],
                     b: T.In[T.f32, ("N",)], probs: T.Out[T.f16, ("M", "N")]):
    M, K = x.shape
    N = w.shape[0]
    rows, classes, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    logits = T.matmul(x[rows, ks], w[classes, ks], transpose_rhs=True, init=b[classes])   # f32 [M, N]
    e = T.exp(logits - T.max(logits, axis=1))
    probs[rows, classes] = T.cast(e / T.sum(e, axis=1), T.f16)


KERNEL = gemm_row_softmax
CONSTEXPRS = {}


def inputs(shape, rng):
    M, K, N = shape["M"], shape["K"], shape["N"]
    return dict(x=rng.standard_normal((M, K)).astype(np.float16),
                w=(rng.standard_normal((N, K)) / np.sqrt(K)).astype(np.float16),
                b=rng.standard_normal(N).astype(np.float32))


def reference(x, w, b):
    z = x.astype(np.float64) @ w.astype(np.float64).T + b.astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return dict(probs=e / e.sum(axis=1, keepdims=True))


def peer(x, w, b):
    import torch
    z = torch.nn.functional.linear(x, w).float() + b
    return dict(probs=torch.softmax(z, dim=-1).to(torch.float16))


TEST_SHAPES = [dict(M=1, K=1, N=1), dict(M=3, K=17, N=5), dict(M=37, K=131, N=67),
               dict(M=129, K=257, N=256)]
BENCH_SHAPE = dict(M=32768, K=1024, N=256)
TOLERANCE = dict(rtol=2e-2, atol=2e-3)
PEER = "torch.compile"


def OPS(shape):
    M, K, N = shape["M"], shape["K"], shape["N"]
    return 2 * M * N * K + 4 * M * N, 2 * (M * K + N * K + M * N) + 4 * N
