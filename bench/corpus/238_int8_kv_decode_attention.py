"""Decode attention against an int8 KV cache: q [B, H, D] f16; k, v [B, T, H, D] int8 with per-(b, t, h)
f32 scales k_scale, v_scale [B, T, H] (k = k_int8 * k_scale, v likewise); out = softmax(q k^T / sqrt(D)) v,
[B, H, D] f16. B=16 H=32 T=8192 D=128. Peer: torch.compile (dequantize, then SDPA)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def int8_kv_decode_attention(q: T.In[T.f16, ("B", "H", "D")], k: T.In[T.i8, ("B", "T", "H", "D")],
                             v: T.In[T.i8, ("B", "T", "H", "D")], k_scale: T.In[T.f32, ("B", "T", "H")],
                             v_scale: T.In[T.f32, ("B", "T", "H")], out: T.Out[T.f16, ("B", "H", "D")]):
    B, Tn, H, D = k.shape
    keys, dims = T.domain(0, Tn), T.domain(0, D)
    scale = T.rsqrt(T.cast(D, T.f32))
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        s = T.matvec(T.cast(k[b, keys, h, dims], T.f16), q[b, h, dims]) * k_scale[b, keys, h] * scale
        p = T.exp(s - T.max(s))
        pv = T.cast(p * v_scale[b, keys, h], T.f16)              # the value scale folded into the weights
        acc = T.vecmat(pv, T.cast(v[b, keys, h, dims], T.f16))
        out[b, h, dims] = T.cast(acc / T.sum(p), T.f16)


KERNEL = int8_kv_decode_attention
CONSTEXPRS = {}


def _quant(t, rng):
    scale = np.abs(t).max(axis=-1) / 127.0 + 1e-8
    return np.clip(np.rint(t / scale[..., None]), -127, 127).astype(np.int8), scale.astype(np.float32)


def inputs(shape, rng):
    B, H, Tn, D = shape["B"], shape["H"], shape["T"], shape["D"]
    k, ks = _quant(rng.standard_normal((B, Tn, H, D)) * 2.0, rng)
    v, vs = _quant(rng.standard_normal((B, Tn, H, D)), rng)
    return dict(q=rng.standard_normal((B, H, D)).astype(np.float32), k=k, v=v, k_scale=ks, v_scale=vs)


def reference(q, k, v, k_scale, v_scale):
    q = np.asarray(q, np.float64)
    kf = k.astype(np.float64) * k_scale.astype(np.float64)[..., None]        # [B, T, H, D]
    vf = v.astype(np.float64) * v_scale.astype(np.float64)[..., None]
    s = np.einsum("bhd,bthd->bht", q, kf) / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return dict(out=np.einsum("bht,bthd->bhd", p, vf))


def peer(q, k, v, k_scale, v_scale):
    import torch.nn.functional as F
    kf = (k.to(q.dtype) * k_scale[..., None].to(q.dtype)).transpose(1, 2)       # [B, H, T, D]
    vf = (v.to(q.dtype) * v_scale[..., None].to(q.dtype)).transpose(1, 2)
    return dict(out=F.scaled_dot_product_attention(q[:, :, None], kf, vf)[:, :, 0])


TEST_SHAPES = [dict(B=1, H=1, T=1, D=16), dict(B=2, H=3, T=37, D=32), dict(B=3, H=2, T=131, D=24),
               dict(B=1, H=4, T=300, D=64)]
BENCH_SHAPE = dict(B=16, H=32, T=8192, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    B, H, Tn, D = shape["B"], shape["H"], shape["T"], shape["D"]
    return 4 * B * H * Tn * D, 2 * B * Tn * H * D + 8 * B * Tn * H + 4 * B * H * D
