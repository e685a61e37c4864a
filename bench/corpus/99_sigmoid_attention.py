"""Sigmoid attention (no softmax normalisation): out[b, h, q, :] = sum_k sigmoid(q . k * D^-0.5 + bias) * v[k, :]
for q, k, v [B, H, S, D] bf16, non-causal, bias a float scalar (typically -log(S)); out [B, H, S, D] bf16.
"""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sigmoid_attention(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "H", "S", "D")],
                      v: T.In[T.bf16, ("B", "H", "S", "D")], out: T.Out[T.bf16, ("B", "H", "S", "D")],
                      bias: T.f32):
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    scale = T.rsqrt(T.cast(D, T.f32))
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        scores = T.matvec(k[b, h, keys, dims], q[b, h, i, dims])          # f32 [S]
        p = T.sigmoid(scores * scale + bias)
        o = T.vecmat(p, T.cast(v[b, h, keys, dims], T.f32))               # f32 [D]
        out[b, h, i, dims] = T.cast(o, T.bf16)


KERNEL = sigmoid_attention


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    mk = lambda: rng.standard_normal((B, H, S, D)).astype(np.float32)
    return dict(q=mk(), k=mk(), v=mk(), bias=-math.log(max(S, 2)))


def reference(q, k, v, bias):
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    D = q.shape[-1]
    s = np.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(D) + bias
    p = 1.0 / (1.0 + np.exp(-s))
    return {"out": np.einsum("bhqk,bhkd->bhqd", p, v)}


def peer(q, k, v, bias):
    import torch
    D = q.shape[-1]
    s = torch.matmul(q, k.transpose(-1, -2)).float() * D ** -0.5 + bias
    return {"out": torch.matmul(torch.sigmoid(s).to(v.dtype), v)}


TEST_SHAPES = [dict(B=1, H=1, S=1, D=1), dict(B=2, H=3, S=17, D=8), dict(B=1, H=2, S=67, D=13)]
BENCH_SHAPE = dict(B=4, H=16, S=4096, D=64)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)    # bf16 output (and bf16 casts under TRITON_INTERPRET=1)
PEER = "torch.compile"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return 4 * B * H * S * S * D, 4 * B * H * S * D * 2
