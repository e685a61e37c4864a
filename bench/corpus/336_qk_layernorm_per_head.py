"""Per-head QK LayerNorm for grouped-query attention (StableLM-2-12B's qk_layernorm, StableLmLayerNormPerHead:
each head's query and key vectors are layer-normalized over the head dimension with that head's own weight,
no bias, before the rotary embedding): for q bf16 [T, HQ, D] and k bf16 [T, HKV, D], each head vector x is
mapped to (x - mean(x)) / sqrt(var(x) + eps) * w[h] (biased variance over the D entries, f32 math), with
q_w f32 [HQ, D] and k_w f32 [HKV, D]; q_out bf16 [T, HQ, D], k_out bf16 [T, HKV, D], eps a runtime f32
(1e-5). T16384 HQ32 HKV8 D160 (StableLM-2-12B: hidden 5120 in 32 heads of 160, 8 KV heads). Peer:
torch.compile of the model's module (a LayerNorm per head over the split heads)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def head_norm(x, w, eps, nf):
    xf = T.cast(x, T.f32)
    mean = T.sum(xf, axis=1) / nf
    d = xf - mean
    var = T.sum(d * d, axis=1) / nf
    return T.cast(d * T.rsqrt(var + eps) * w, T.bf16)


@tessel.kernel
def qk_layernorm(q: T.In[T.bf16, ("T", "HQ", "D")], k: T.In[T.bf16, ("T", "HKV", "D")],
                 q_w: T.In[T.f32, ("HQ", "D")], k_w: T.In[T.f32, ("HKV", "D")],
                 q_out: T.Out[T.bf16, ("T", "HQ", "D")], k_out: T.Out[T.bf16, ("T", "HKV", "D")], eps: T.f32):
    NT, HQ, D = q.shape
    HKV = k.shape[1]
    dims, qheads, kvheads = T.domain(0, D), T.domain(0, HQ), T.domain(0, HKV)
    nf = T.cast(D, T.f32)
    for t in T.parallel(T.domain(0, NT)):
        q_out[t, qheads, dims] = head_norm(q[t, qheads, dims], q_w[qheads, dims], eps, nf)
        k_out[t, kvheads, dims] = head_norm(k[t, kvheads, dims], k_w[kvheads, dims], eps, nf)


KERNEL = qk_layernorm


def inputs(shape, rng):
    NT, HQ, HKV, D = shape["T"], shape["HQ"], shape["HKV"], shape["D"]
    return dict(q=(rng.standard_normal((NT, HQ, D)) * 2.0 + 0.5).astype(np.float32),
                k=(rng.standard_normal((NT, HKV, D)) * 3.0 - 0.25).astype(np.float32),
                q_w=(1.0 + 0.1 * rng.standard_normal((HQ, D))).astype(np.float32),
                k_w=(1.0 + 0.1 * rng.standard_normal((HKV, D))).astype(np.float32), eps=1e-5)


def _ln(x, w, eps):
    x = x.astype(np.float64)
    d = x - x.mean(-1, keepdims=True)
    return d / np.sqrt((d * d).mean(-1, keepdims=True) + eps) * w


def reference(q, k, q_w, k_w, eps):
    return dict(q_out=_ln(q, q_w, eps), k_out=_ln(k, k_w, eps))


def peer(q, k, q_w, k_w, eps):
    import torch

    def ln(x, w):
        x = x.float()
        d = x - x.mean(-1, keepdim=True)
        return (d * torch.rsqrt(d.pow(2).mean(-1, keepdim=True) + eps) * w).to(torch.bfloat16)
    return dict(q_out=ln(q, q_w), k_out=ln(k, k_w))


def OPS(shape):
    n = shape["T"] * (shape["HQ"] + shape["HKV"]) * shape["D"]
    return 8 * n, 4 * n


TEST_SHAPES = [dict(T=1, HQ=1, HKV=1, D=1), dict(T=2, HQ=2, HKV=1, D=5), dict(T=3, HQ=3, HKV=1, D=37)]
BENCH_SHAPE = dict(T=16384, HQ=32, HKV=8, D=160)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
