"""Skinny GEMV (decode): y = W·x for W [N,K] bf16 and a batch of 1-16 activation vectors
(x [B,K], y [B,N], i.e. y = x·Wᵀ as torch's F.linear), 4096x14336 (NxK). Peer: cuBLAS via torch."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gemv_decode(w: T.In[T.bf16, ("N", "K")],
                x: T.In[T.bf16, ("B", "K")],
                y: T.Out[T.bf16, ("B", "N")]):
    acc = T.matmul(x[:, :], w[:, :], transpose_rhs=True, acc_dtype=T.f32)   # [B, N]
    y[:, :] = T.cast(acc, T.bf16)


KERNEL = gemv_decode
CONSTEXPRS = {}


def inputs(shape, rng):
    B, N, K = shape["B"], shape["N"], shape["K"]
    return {
        "w": (rng.standard_normal((N, K)) / np.sqrt(K)).astype(np.float32),
        "x": rng.standard_normal((B, K)).astype(np.float32),
    }


def reference(w, x):
    return {"y": x.astype(np.float64) @ w.astype(np.float64).T}


def peer(w, x):
    import torch.nn.functional as F
    return {"y": F.linear(x, w)}


TEST_SHAPES = [dict(B=1, N=1, K=1), dict(B=1, N=131, K=257), dict(B=3, N=67, K=1031),
               dict(B=16, N=97, K=129)]
BENCH_SHAPE = dict(B=1, N=4096, K=14336)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "cuBLAS (torch.nn.functional.linear)"


def OPS(shape):
    B, N, K = shape["B"], shape["N"], shape["K"]
    return 2 * B * N * K, 2 * (N * K + B * K + B * N)
