"""RWKV-4 WKV recurrence (the simple, non-log-space form), per (batch, channel) along time, f32: with
per-channel decay w [C] (used as -exp(w)) and bonus u [C], inputs k, v [B, T, C]:
out_t = (a + exp(u + k_t) v_t) / (b + exp(u + k_t)), then a = exp(-exp(w)) a + exp(k_t) v_t and
b = exp(-exp(w)) b + exp(k_t), with a = b = 0 before t = 0. B=8 T=1024 C=2048.
Peer: torch.compile of the same loop over time (what RWKV's reference model runs without its CUDA kernel)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rwkv4_wkv(w: T.In[T.f32, ("C",)], u: T.In[T.f32, ("C",)], k: T.In[T.f32, ("B", "T", "C")],
              v: T.In[T.f32, ("B", "T", "C")], out: T.Out[T.f32, ("B", "T", "C")]):
    B, Tn, C = k.shape
    chans = T.domain(0, C)
    for bi in T.parallel(T.domain(0, B)):
        decay = T.exp(-T.exp(w[chans]))
        bonus = u[chans]
        a = T.zeros(chans)
        b = T.zeros(chans)
        for t in T.domain(0, Tn):
            kt, vt = k[bi, t, chans], v[bi, t, chans]
            eu = T.exp(bonus + kt)
            out[bi, t, chans] = (a + eu * vt) / (b + eu)
            ek = T.exp(kt)
            a = decay * a + ek * vt
            b = decay * b + ek


KERNEL = rwkv4_wkv
CONSTEXPRS = {}


def inputs(shape, rng):
    B, Tn, C = shape["B"], shape["T"], shape["C"]
    return dict(w=rng.uniform(-3.0, 1.0, size=C).astype(np.float32),     # decay exp(-exp(w)) in (0.07, 0.95)
                u=rng.uniform(-1.0, 1.0, size=C).astype(np.float32),
                k=rng.uniform(-2.0, 2.0, size=(B, Tn, C)).astype(np.float32),
                v=rng.standard_normal((B, Tn, C)).astype(np.float32))


def reference(w, u, k, v):
    k, v = k.astype(np.float64), v.astype(np.float64)
    decay = np.exp(-np.exp(w.astype(np.float64)))
    a = np.zeros((k.shape[0], k.shape[2]))
    b = np.zeros_like(a)
    out = np.empty_like(k)
    for t in range(k.shape[1]):
        eu = np.exp(u + k[:, t])
        out[:, t] = (a + eu * v[:, t]) / (b + eu)
        a = decay * a + np.exp(k[:, t]) * v[:, t]
        b = decay * b + np.exp(k[:, t])
    return dict(out=out)


def peer(w, u, k, v):
    import torch
    decay = torch.exp(-torch.exp(w))
    a = torch.zeros_like(k[:, 0])
    b = torch.zeros_like(a)
    outs = []
    for t in range(k.shape[1]):
        eu = torch.exp(u + k[:, t])
        outs.append((a + eu * v[:, t]) / (b + eu))
        ek = torch.exp(k[:, t])
        a = decay * a + ek * v[:, t]
        b = decay * b + ek
    return dict(out=torch.stack(outs, dim=1))


TEST_SHAPES = [dict(B=1, T=1, C=1), dict(B=2, T=7, C=3), dict(B=3, T=37, C=130), dict(B=1, T=131, C=17)]
BENCH_SHAPE = dict(B=8, T=1024, C=2048)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    B, Tn, C = shape["B"], shape["T"], shape["C"]
    return 12 * B * Tn * C, 4 * (3 * B * Tn * C + 2 * C)
