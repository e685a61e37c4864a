"""Mamba-2 selective state update, one decoding step (mamba_ssm's selective_state_update with heads and
groups): per (b, h) with group gr = h // (H / G), dt = softplus(dt_raw[b, h] + dt_bias[h]) (torch's
softplus, linear past 20), the state [P, N] becomes state * exp(dt * A[h]) + dt * x[b, h, p] * Bm[b, gr,
n]; y[b, h, p] = (sum_n state[p, n] * Cm[b, gr, n] + D[h] * x[b, h, p]) * silu(z[b, h, p]). State f32
[B, H, P, N] updated in place; x, z f32 [B, H, P]; dt_raw f32 [B, H]; Bm, Cm f32 [B, G, N]. B128 H80
P64 N128 G1 (Mamba2-2.7B). Peer: torch (mamba_ssm's selective_state_update_ref, eager)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def mamba2_state_update(state: T.InOut[T.f32, ("B", "H", "P", "N")], x: T.In[T.f32, ("B", "H", "P")],
                        dt_raw: T.In[T.f32, ("B", "H")], dt_bias: T.In[T.f32, ("H",)], A: T.In[T.f32, ("H",)],
                        Bm: T.In[T.f32, ("B", "G", "N")], Cm: T.In[T.f32, ("B", "G", "N")],
                        D: T.In[T.f32, ("H",)], z: T.In[T.f32, ("B", "H", "P")],
                        y: T.Out[T.f32, ("B", "H", "P")]):
    B, H, P, N = state.shape
    G = Bm.shape[1]
    ps, ns = T.domain(0, P), T.domain(0, N)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        gr = h // (H // G)
        d = dt_raw[b, h] + dt_bias[h]
        dt = T.where(d > 20.0, d, T.log1p(T.exp(d)))
        xs = x[b, h, ps]
        s = state[b, h, ps, ns] * T.exp(dt * A[h]) + T.outer(xs * dt, Bm[b, gr, ns])
        state[b, h, ps, ns] = s
        out = T.sum(s * Cm[b, gr, ns], axis=1) + D[h] * xs
        zs = z[b, h, ps]
        y[b, h, ps] = out * (zs * T.sigmoid(zs))


KERNEL = mamba2_state_update


def inputs(shape, rng):
    B, H, P, N, G = shape["B"], shape["H"], shape["P"], shape["N"], shape["G"]
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    return dict(state=f(B, H, P, N), x=f(B, H, P), dt_raw=(3.0 * f(B, H)).astype(np.float32) + 1.0,
                dt_bias=f(H), A=(-np.exp(f(H))).astype(np.float32), Bm=f(B, G, N), Cm=f(B, G, N), D=f(H),
                z=f(B, H, P))


def reference(state, x, dt_raw, dt_bias, A, Bm, Cm, D, z):
    B, H, P, N = state.shape
    G = Bm.shape[1]
    gr = np.arange(H) // (H // G)
    d = dt_raw.astype(np.float64) + dt_bias
    dt = np.where(d > 20.0, d, np.log1p(np.exp(np.minimum(d, 20.0))))
    s = state * np.exp(dt * A)[..., None, None] + (x * dt[..., None])[..., None] * Bm[:, gr][:, :, None, :]
    out = (s * Cm[:, gr][:, :, None, :]).sum(-1) + D[:, None] * x
    return dict(state=s, y=out * z / (1.0 + np.exp(-z.astype(np.float64))))


def peer(state, x, dt_raw, dt_bias, A, Bm, Cm, D, z):
    import torch
    import torch.nn.functional as F
    H, G = state.shape[1], Bm.shape[1]
    dt = F.softplus(dt_raw + dt_bias)
    Bh, Ch = Bm.repeat_interleave(H // G, dim=1), Cm.repeat_interleave(H // G, dim=1)
    state.copy_(state * torch.exp(dt * A)[..., None, None] + (x * dt[..., None])[..., None] * Bh[:, :, None, :])
    out = (state * Ch[:, :, None, :]).sum(-1) + D[:, None] * x
    return dict(state=state, y=out * F.silu(z))


def OPS(shape):
    n = shape["B"] * shape["H"] * shape["P"] * shape["N"]
    return 6 * n, 8 * n


TEST_SHAPES = [dict(B=1, H=1, P=1, N=1, G=1), dict(B=2, H=6, P=5, N=7, G=3), dict(B=3, H=4, P=11, N=16, G=1)]
BENCH_SHAPE = dict(B=128, H=80, P=64, N=128, G=1)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch"
