"""Cross-attention: S queries attend over T keys/values with no mask, O = softmax(scale Q.K^T) . V.
Q [B,H,S,D], K/V [B,H,T,D]; bench S=1024, T=4096, D=128 (B4 H32), bf16. Peer: SDPA."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def cross_attention(q: T.In[T.bf16, ("B", "H", "S", "D")],
                    k: T.In[T.bf16, ("B", "H", "T", "D")],
                    v: T.In[T.bf16, ("B", "H", "T", "D")],
                    o: T.Out[T.bf16, ("B", "H", "S", "D")],
                    scale: T.f32):
    B, H, S, D = q.shape
    keys = k.domain(2)
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale     # f32 over keys
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), T.bf16)


KERNEL = cross_attention


def inputs(shape, rng):
    B, H, S, Tk, D = shape["B"], shape["H"], shape["S"], shape["T"], shape["D"]
    return dict(q=rng.standard_normal((B, H, S, D), dtype=np.float32),
                k=rng.standard_normal((B, H, Tk, D), dtype=np.float32),
                v=rng.standard_normal((B, H, Tk, D), dtype=np.float32),
                scale=1.0 / math.sqrt(D))


def reference(q, k, v, scale):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(o=np.einsum("bhqk,bhkd->bhqd", p, v))


def peer(q, k, v, scale):
    import torch.nn.functional as F
    return dict(o=F.scaled_dot_product_attention(q, k, v, scale=scale))


TEST_SHAPES = [dict(B=1, H=1, S=1, T=1, D=16), dict(B=1, H=2, S=13, T=67, D=32),
               dict(B=2, H=1, S=41, T=29, D=24)]
BENCH_SHAPE = dict(B=4, H=32, S=1024, T=4096, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.nn.functional.scaled_dot_product_attention"


def OPS(shape):
    B, H, S, Tk, D = shape["B"], shape["H"], shape["S"], shape["T"], shape["D"]
    return 4 * B * H * S * Tk * D, 2 * B * H * (2 * S + 2 * Tk) * D
