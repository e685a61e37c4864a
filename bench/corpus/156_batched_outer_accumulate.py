"""Batched outer product accumulate: out[b] = sum_t u[b, t, :]^T v[b, t, :] (i.e. U^T V per batch), u f16 [B, T, D1], v f16 [B, T, D2], out f32 [B, D1, D2]. B64 T2048 D1 128 D2 128. Peer: torch.bmm(u.transpose(1,2), v)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def batched_outer_accumulate(u: T.In[T.f16, ("B", "T", "D1")], v: T.In[T.f16, ("B", "T", "D2")],
                             out: T.Out[T.f32, ("B", "D1", "D2")]):
    B, NT, D1 = u.shape
    D2 = v.shape[2]
    bs, ts, d1, d2 = T.domain(0, B), T.domain(0, NT), T.domain(0, D1), T.domain(0, D2)
    out[bs, d1, d2] = T.contract(u[bs, ts, d1], v[bs, ts, d2], reduce=((1, 1),), batch=((0, 0),),
                                 acc_dtype=T.f32)


KERNEL = batched_outer_accumulate


def inputs(shape, rng):
    B, NT, D1, D2 = shape["B"], shape["T"], shape["D1"], shape["D2"]
    return dict(u=rng.standard_normal((B, NT, D1)).astype(np.float16),
                v=rng.standard_normal((B, NT, D2)).astype(np.float16))


def reference(u, v):
    return {"out": np.matmul(u.astype(np.float64).transpose(0, 2, 1), v.astype(np.float64))}


def peer(u, v):
    # bmm of the f16 operands (f16 result, f32 accumulation inside), widened to the f32 output
    import torch
    return {"out": torch.bmm(u.transpose(1, 2), v).float()}


def OPS(shape):
    B, NT, D1, D2 = shape["B"], shape["T"], shape["D1"], shape["D2"]
    return 2 * B * NT * D1 * D2, 2 * B * NT * (D1 + D2) + 4 * B * D1 * D2


TEST_SHAPES = [dict(B=1, T=1, D1=1, D2=1), dict(B=3, T=17, D1=5, D2=7), dict(B=2, T=131, D1=33, D2=19)]
BENCH_SHAPE = dict(B=64, T=2048, D1=128, D2=128)
TOLERANCE = dict(rtol=1e-4, atol=1e-3)
BENCH_TOLERANCE = dict(rtol=2e-3, atol=5e-2)
PEER = "torch.bmm(u.transpose(1,2), v)"
