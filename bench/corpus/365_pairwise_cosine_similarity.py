"""Pairwise cosine similarity matrix between two sets of vectors (retrieval scores, CLIP-style logits before
the temperature): a f16 [M, D], b f16 [N, D]; out[i, j] = <a_i, b_j> / (max(|a_i|, eps) * max(|b_j|, eps)),
dot products and norms in f32, out f16 [M, N], eps a runtime scalar (1e-8). M4096 N4096 D256. Peer:
torch.compile(F.normalize(a.float(), dim=1, eps=eps) @ F.normalize(b.float(), dim=1, eps=eps).T), cast to f16."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def pairwise_cosine(a: T.In[T.f16, ("M", "D")], b: T.In[T.f16, ("N", "D")], out: T.Out[T.f16, ("M", "N")],
                    eps: T.f32):
    M, D = a.shape
    N = b.shape[0]
    rows, cols, dims = T.domain(0, M), T.domain(0, N), T.domain(0, D)
    af = T.cast(a[rows, dims], T.f32)
    bf = T.cast(b[cols, dims], T.f32)
    na = T.maximum(T.sqrt(T.sum(af * af, axis=1)), eps)          # [M]
    nb = T.maximum(T.sqrt(T.sum(bf * bf, axis=1)), eps)          # [N]
    dots = T.matmul(a[rows, dims], b[cols, dims], transpose_rhs=True, acc_dtype=T.f32)
    out[rows, cols] = T.cast(dots / na / nb, T.f16)


KERNEL = pairwise_cosine


def inputs(shape, rng):
    M, N, D = shape["M"], shape["N"], shape["D"]
    a = rng.standard_normal((M, D))
    b = rng.standard_normal((N, D))
    if N:
        b[:min(M, N) // 2] += a[:min(M, N) // 2]                  # some pairs alike (scores near 1)
    return dict(a=a.astype(np.float32), b=b.astype(np.float32), eps=1e-8)


def reference(a, b, eps):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    na = np.maximum(np.sqrt((a64 * a64).sum(axis=1)), eps)
    nb = np.maximum(np.sqrt((b64 * b64).sum(axis=1)), eps)
    return dict(out=(a64 @ b64.T) / na[:, None] / nb[None, :])


def peer(a, b, eps):
    import torch.nn.functional as F
    return dict(out=(F.normalize(a.float(), dim=1, eps=eps) @ F.normalize(b.float(), dim=1, eps=eps).T).to(a.dtype))


def OPS(shape):
    M, N, D = shape["M"], shape["N"], shape["D"]
    return 2 * M * N * D + 2 * (M + N) * D + 2 * M * N, 2 * (M * D + N * D + M * N)


TEST_SHAPES = [dict(M=0, N=3, D=5), dict(M=1, N=1, D=1), dict(M=3, N=7, D=0), dict(M=17, N=33, D=67),
               dict(M=37, N=131, D=129)]
BENCH_SHAPE = dict(M=4096, N=4096, D=256)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile"
