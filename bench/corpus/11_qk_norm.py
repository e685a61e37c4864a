"""QK-norm: RMSNorm over the head dimension of Q and K [B,H,S,D] with per-head weights
(q_w, k_w of shape [H, D]). B4 H32 S4096 D128, bf16. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def qk_norm(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "H", "S", "D")],
            q_w: T.In[T.bf16, ("H", "D")], k_w: T.In[T.bf16, ("H", "D")],
            q_out: T.Out[T.bf16, ("B", "H", "S", "D")], k_out: T.Out[T.bf16, ("B", "H", "S", "D")],
            eps: T.f32):
    B, H, S, D = q.shape
    dims = T.domain(0, D)
    d = T.cast(D, T.f32)
    for b, h, s in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        qv = T.cast(q[b, h, s, dims], T.f32)
        qr = T.rsqrt(T.sum(qv * qv) / d + eps)
        q_out[b, h, s, dims] = T.cast(qv * qr * T.cast(q_w[h, dims], T.f32), T.bf16)
        kv = T.cast(k[b, h, s, dims], T.f32)
        kr = T.rsqrt(T.sum(kv * kv) / d + eps)
        k_out[b, h, s, dims] = T.cast(kv * kr * T.cast(k_w[h, dims], T.f32), T.bf16)


KERNEL = qk_norm
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return dict(
        q=rng.standard_normal((B, H, S, D)).astype(np.float32),
        k=(3.0 * rng.standard_normal((B, H, S, D))).astype(np.float32),
        q_w=(1.0 + 0.1 * rng.standard_normal((H, D))).astype(np.float32),
        k_w=(1.0 + 0.1 * rng.standard_normal((H, D))).astype(np.float32),
        eps=1e-6,
    )


def _rms(x, w, eps):
    x = x.astype(np.float64)
    r = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return x * r * w.astype(np.float64)[None, :, None, :]


def reference(q, k, q_w, k_w, eps):
    return dict(q_out=_rms(q, q_w, eps), k_out=_rms(k, k_w, eps))


def peer(q, k, q_w, k_w, eps):
    import torch

    def rms(x, w):
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()[None, :, None, :]
        return y.to(x.dtype)
    return dict(q_out=rms(q, q_w), k_out=rms(k, k_w))


TEST_SHAPES = [dict(B=1, H=1, S=1, D=1), dict(B=1, H=3, S=7, D=128),
               dict(B=2, H=5, S=13, D=67), dict(B=3, H=2, S=33, D=96)]
BENCH_SHAPE = dict(B=4, H=32, S=4096, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    n = shape["B"] * shape["H"] * shape["S"] * shape["D"]
    return 2 * 4 * n, 2 * (4 * n + 2 * shape["H"] * shape["D"])
