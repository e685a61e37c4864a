"""Scores of each query against its own selected keys (sparse / top-k attention's score step):
q [N, D] bf16, k [M, D] bf16, idx [N, J] i32 (key indices of each query), s[n, j] = dot(q[n], k[idx[n, j]])
* scale, f32 out [N, J]. N=16384 M=65536 J=64 D=128.
Peer: torch.compile (k[idx] gather, then einsum with q)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sparse_qk_scores(q: T.In[T.bf16, ("N", "D")], k: T.In[T.bf16, ("M", "D")],
                     idx: T.In[T.i32, ("N", "J"), T.Range(0, "M")], s: T.Out[T.f32, ("N", "J")],
                     scale: T.f32):
    N, D = q.shape
    J = idx.shape[1]
    sel, dims = T.domain(0, J), T.domain(0, D)
    for n in T.parallel(T.domain(0, N)):
        keys = k[idx[n, sel], dims]                        # [J, D] gathered rows
        s[n, sel] = T.matvec(keys, q[n, dims]) * scale


KERNEL = sparse_qk_scores
CONSTEXPRS = {}


def inputs(shape, rng):
    N, M, J, D = (shape[n] for n in ("N", "M", "J", "D"))
    return dict(q=rng.standard_normal((N, D)).astype(np.float32),
                k=rng.standard_normal((M, D)).astype(np.float32),
                idx=rng.integers(0, M, size=(N, J)).astype(np.int32),
                scale=1.0 / math.sqrt(D))


def reference(q, k, idx, scale):
    kd = k.astype(np.float64)[idx]                          # [N, J, D]
    return dict(s=np.einsum("nd,njd->nj", q.astype(np.float64), kd) * scale)


def peer(q, k, idx, scale):
    import torch
    return dict(s=torch.einsum("nd,njd->nj", q.float(), k[idx.long()].float()) * scale)


TEST_SHAPES = [dict(N=1, M=1, J=1, D=1), dict(N=7, M=13, J=5, D=24), dict(N=37, M=131, J=17, D=64),
               dict(N=5, M=1031, J=64, D=130)]
BENCH_SHAPE = dict(N=16384, M=65536, J=64, D=128)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    N, M, J, D = (shape[n] for n in ("N", "M", "J", "D"))
    return 2 * N * J * D, 2 * N * D + 2 * N * J * D + 4 * N * J * 2
