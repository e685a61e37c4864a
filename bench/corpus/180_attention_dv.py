"""Attention backward, the dV piece (non-causal): given q, k [B, H, S, D] bf16, dO [B, H, S, D] bf16 and
the forward's logsumexp lse [B, H, S] f32 of each query row, dV = P^T @ dO with
P = exp(q k^T * scale - lse), scale 1/sqrt(D); dV [B, H, S, D] f32. B=2 H=16 S=2048 D=64.
Peer: torch.compile (recompute P from q, k and lse, then P^T @ dO)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def attention_dv(q: T.In[T.bf16, ("B", "H", "S", "D")],
                 k: T.In[T.bf16, ("B", "H", "S", "D")],
                 do: T.In[T.bf16, ("B", "H", "S", "D")],
                 lse: T.In[T.f32, ("B", "H", "S")],
                 dv: T.Out[T.f32, ("B", "H", "S", "D")],
                 scale: T.f32):
    B, H, S, D = q.shape
    queries, dims = T.domain(0, S), T.domain(0, D)
    for b, h, j in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):   # one key row
        s = T.matvec(q[b, h, queries, dims], k[b, h, j, dims]) * scale          # f32 over queries
        p = T.exp(s - lse[b, h, queries])                                        # column j of P
        dv[b, h, j, dims] = T.vecmat(T.cast(p, T.bf16), do[b, h, queries, dims])


KERNEL = attention_dv
CONSTEXPRS = {}


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    B, H, S, D = (shape[n] for n in ("B", "H", "S", "D"))
    q = _bf16(rng.standard_normal((B, H, S, D), dtype=np.float32))
    k = _bf16(rng.standard_normal((B, H, S, D), dtype=np.float32))
    scale = 1.0 / math.sqrt(D)
    s = np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k.astype(np.float64)) * scale
    mx = s.max(-1)
    lse = (mx + np.log(np.exp(s - mx[..., None]).sum(-1))).astype(np.float32)   # the forward's
    return dict(q=q, k=k, do=rng.standard_normal((B, H, S, D), dtype=np.float32), lse=lse, scale=scale)


def reference(q, k, do, lse, scale):
    q, k, do, lse = (np.asarray(x, np.float64) for x in (q, k, do, lse))
    p = np.exp(np.einsum("bhqd,bhkd->bhqk", q, k) * scale - lse[..., None])
    return dict(dv=np.einsum("bhqk,bhqd->bhkd", p, do))


def peer(q, k, do, lse, scale):
    import torch
    s = torch.matmul(q, k.transpose(-1, -2)).float() * scale
    p = torch.exp(s - lse[..., None])
    return dict(dv=torch.matmul(p.to(do.dtype).transpose(-1, -2), do).float())


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=1, H=2, S=37, D=32), dict(B=2, H=1, S=67, D=24),
               dict(B=1, H=1, S=131, D=64)]
BENCH_SHAPE = dict(B=2, H=16, S=2048, D=64)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    B, H, S, D = (shape[n] for n in ("B", "H", "S", "D"))
    return 4 * B * H * S * S * D, 2 * 3 * B * H * S * D + 4 * B * H * S + 4 * B * H * S * D
