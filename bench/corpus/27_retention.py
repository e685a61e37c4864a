"""RetNet retention (parallel form) with a fixed scalar decay gamma[h] per head:
o[b, h, t] = sum_{s <= t} gamma[h]^(t - s) (q[b, h, t] . k[b, h, s]) v[b, h, s]. Q, K, V, O [B, H, T, D]
f32, B8 H16 T4096 D128. Peer: torch, parallel form with the decay mask."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def retention(q: T.In[T.f32, ("B", "H", "T", "D")],
              k: T.In[T.f32, ("B", "H", "T", "D")],
              v: T.In[T.f32, ("B", "H", "T", "D")],
              gamma: T.In[T.f32, ("H",)],
              o: T.Out[T.f32, ("B", "H", "T", "D")]):
    B, H, Tn, D = q.shape
    keys, dims = T.domain(0, Tn), T.domain(0, D)
    kpos = T.indices(keys)
    for b, h, t in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, Tn)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, t, dims])                 # [T] scores
        decay = T.where(kpos <= t, gamma[h] ** T.cast(t - kpos, T.f32), 0.0)
        o[b, h, t, dims] = T.vecmat(s * decay, v[b, h, keys, dims])


KERNEL = retention
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, Tn, D = shape["B"], shape["H"], shape["T"], shape["D"]
    sc = 1.0 / np.sqrt(D)
    return dict(q=(rng.standard_normal((B, H, Tn, D)) * sc).astype(np.float32),
                k=rng.standard_normal((B, H, Tn, D)).astype(np.float32),
                v=rng.standard_normal((B, H, Tn, D)).astype(np.float32),
                gamma=(1.0 - 2.0 ** (-5.0 - np.arange(H) * 4.0 / max(H - 1, 1))).astype(np.float32))


def reference(q, k, v, gamma):
    q, k, v, g = (a.astype(np.float64) for a in (q, k, v, gamma))
    B, H, Tn, D = q.shape
    o = np.zeros_like(v)
    state = np.zeros((B, H, D, D))                        # recurrent form: S_t = gamma S_{t-1} + k_t^T v_t
    for t in range(Tn):
        state = g[None, :, None, None] * state + np.einsum("bhd,bhe->bhde", k[:, :, t], v[:, :, t])
        o[:, :, t] = np.einsum("bhd,bhde->bhe", q[:, :, t], state)
    return dict(o=o)


def peer(q, k, v, gamma):
    import torch
    Tn = q.shape[2]
    n = torch.arange(Tn, device=q.device)
    diff = (n[:, None] - n[None, :]).to(q.dtype)                      # [T, T]
    mask = torch.where(diff >= 0, gamma[:, None, None] ** diff.clamp(min=0), 0.0)   # [H, T, T]
    return dict(o=((q @ k.transpose(-1, -2)) * mask) @ v)


TEST_SHAPES = [dict(B=1, H=1, T=1, D=1), dict(B=2, H=3, T=37, D=16), dict(B=1, H=2, T=131, D=32),
               dict(B=1, H=5, T=13, D=128)]
BENCH_SHAPE = dict(B=8, H=16, T=4096, D=128)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
BENCH_TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "torch (parallel form with the decay mask)"


def OPS(shape):
    B, H, Tn, D = shape["B"], shape["H"], shape["T"], shape["D"]
    return 2 * B * H * Tn * Tn * D, 4 * 4 * B * H * Tn * D
