"""Masked mean pooling over a sequence: out[b, d] = sum_t x[b, t, d] * m[b, t] / max(sum_t m[b, t], 1), x bf16 [B, T, D], m int8 [B, T] (0/1), out f32 [B, D]. B64 T2048 D1024. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def masked_mean_pool(x: T.In[T.bf16, ("B", "T", "D")], m: T.In[T.i8, ("B", "T")], out: T.Out[T.f32, ("B", "D")]):
    B, NT, D = x.shape
    ts, ds = T.domain(0, NT), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        w = T.cast(m[b, ts], T.f32)
        total = T.sum(T.cast(x[b, ts, ds], T.f32) * w, axis=0)
        out[b, ds] = total / T.maximum(T.sum(w), 1.0)


KERNEL = masked_mean_pool


def inputs(shape, rng):
    B, NT, D = shape["B"], shape["T"], shape["D"]
    m = (rng.random((B, NT)) < 0.7).astype(np.int8)
    if B > 1:
        m[rng.integers(B)] = 0          # a fully masked sequence gives 0
    return dict(x=rng.standard_normal((B, NT, D)).astype(np.float32), m=m)


def reference(x, m):
    mf = m.astype(np.float64)
    s = (x.astype(np.float64) * mf[:, :, None]).sum(axis=1)
    return {"out": s / np.maximum(mf.sum(axis=1), 1.0)[:, None]}


def peer(x, m):
    mf = m.float()
    return {"out": (x.float() * mf[:, :, None]).sum(dim=1) / mf.sum(dim=1, keepdim=True).clamp(min=1.0)}


def OPS(shape):
    B, NT, D = shape["B"], shape["T"], shape["D"]
    return 2 * B * NT * D, 2 * B * NT * D + B * NT + 4 * B * D


TEST_SHAPES = [dict(B=1, T=1, D=1), dict(B=3, T=17, D=127), dict(B=5, T=131, D=67), dict(B=2, T=1031, D=3)]
BENCH_SHAPE = dict(B=64, T=2048, D=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
