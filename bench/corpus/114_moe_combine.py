"""MoE combine: out[t, :] = sum over k<2 of w[t, k] * Y[idx[t, k], :], Y [2T, D] bf16 (expert outputs in dispatch order), idx [T, 2] int32, w [T, 2] f32. T16384 D4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def moe_combine(y: T.In[T.bf16, ("R", "D")], idx: T.In[T.i32, ("T", 2), T.Range(0, "R")],
                w: T.In[T.f32, ("T", 2)], out: T.Out[T.bf16, ("T", "D")]):
    NT = idx.shape[0]
    dims = T.domain(0, y.shape[1])
    for t in T.parallel(T.domain(0, NT)):
        acc = w[t, 0] * T.cast(y[idx[t, 0], dims], T.f32)
        acc = acc + w[t, 1] * T.cast(y[idx[t, 1], dims], T.f32)
        out[t, dims] = T.cast(acc, T.bf16)


KERNEL = moe_combine


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    NT, R, D = shape["T"], shape["R"], shape["D"]
    idx = rng.permutation(R)[:2 * NT].reshape(NT, 2) if R >= 2 * NT else rng.integers(0, R, (NT, 2))
    w = rng.random((NT, 2)).astype(np.float32)
    return {"y": rng.standard_normal((R, D)).astype(np.float32), "idx": idx.astype(np.int32),
            "w": (w / w.sum(axis=1, keepdims=True)).astype(np.float32)}


def reference(y, idx, w):
    acc = (w[:, 0:1] * y[idx[:, 0]]).astype(np.float32) + (w[:, 1:2] * y[idx[:, 1]]).astype(np.float32)
    return {"out": _bf16(acc)}


def peer(y, idx, w):
    import torch
    g = y[idx.long()].float()                       # [T, 2, D]
    return {"out": (g * w.unsqueeze(-1)).sum(dim=1).to(torch.bfloat16)}


TEST_SHAPES = [dict(T=1, R=2, D=1), dict(T=3, R=6, D=127), dict(T=17, R=34, D=1031)]
BENCH_SHAPE = dict(T=16384, R=32768, D=4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
