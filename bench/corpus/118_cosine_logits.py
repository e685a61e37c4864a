"""Scaled cosine-similarity logits (contrastive loss): S[i, j] = <a_i/|a_i|, b_j/|b_j|> / tau, A [M, D] f16, B [N, D] f16, tau runtime f32, S f16. M=N=8192 D256. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def cosine_logits(a: T.In[T.f16, ("M", "D")], b: T.In[T.f16, ("N", "D")], s: T.Out[T.f16, ("M", "N")],
                  tau: T.f32):
    M, D = a.shape
    N = b.shape[0]
    rows, cols, dims = T.domain(0, M), T.domain(0, N), T.domain(0, D)
    af = T.cast(a[rows, dims], T.f32)
    bf = T.cast(b[cols, dims], T.f32)
    inv_a = 1.0 / T.maximum(T.sqrt(T.sum(af * af, axis=1)), 1e-12)      # [M]
    inv_b = 1.0 / T.maximum(T.sqrt(T.sum(bf * bf, axis=1)), 1e-12)      # [N]
    dots = T.matmul(a[rows, dims], b[cols, dims], transpose_rhs=True)     # f32 [M, N]
    s[rows, cols] = T.cast(dots * inv_a * inv_b / tau, T.f16)


KERNEL = cosine_logits


def inputs(shape, rng):
    return {"a": rng.standard_normal((shape["M"], shape["D"])).astype(np.float16),
            "b": rng.standard_normal((shape["N"], shape["D"])).astype(np.float16), "tau": 0.07}


def reference(a, b, tau):
    a, b = a.astype(np.float64), b.astype(np.float64)
    an = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    bn = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return {"s": ((an @ bn.T) / np.float32(tau)).astype(np.float16)}


def peer(a, b, tau):
    import torch.nn.functional as F
    return {"s": (F.normalize(a, dim=1) @ F.normalize(b, dim=1).T) / tau}


TEST_SHAPES = [dict(M=1, N=1, D=1), dict(M=3, N=5, D=17), dict(M=37, N=131, D=64)]
BENCH_SHAPE = dict(M=8192, N=8192, D=256)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile"
