"""Gated delta rule, one decoding step (Gated DeltaNet, as flash-linear-attention's
fused_recurrent_gated_delta_rule for one token): per (b, h) the state S [DK, DV] decays by exp(g[b, h]),
then is corrected toward v along k with step beta[b, h]: S <- S * exp(g); S <- S + beta * k (v - S^T
k)^T; the output is o = S^T q * DK^-0.5. State f32 [B, H, DK, DV] updated in place, q and k f32 [B, H, DK]
(L2-normalized), v f32 [B, H, DV], g (log decay, negative) and beta f32 [B, H]. B256 H32 DK128 DV128.
Peer: torch (fla's reference recurrence, eager)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gated_delta_decode(state: T.InOut[T.f32, ("B", "H", "DK", "DV")], q: T.In[T.f32, ("B", "H", "DK")],
                       k: T.In[T.f32, ("B", "H", "DK")], v: T.In[T.f32, ("B", "H", "DV")],
                       g: T.In[T.f32, ("B", "H")], beta: T.In[T.f32, ("B", "H")],
                       o: T.Out[T.f32, ("B", "H", "DV")]):
    B, H, DK, DV = state.shape
    dks, dvs = T.domain(0, DK), T.domain(0, DV)
    scale = T.rsqrt(T.cast(DK, T.f32))
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        kk = k[b, h, dks]
        s = state[b, h, dks, dvs] * T.exp(g[b, h])
        predicted = T.sum(s * kk, axis=0)                          # S^T k, over dvs
        delta = (v[b, h, dvs] - predicted) * beta[b, h]
        s = s + T.outer(kk, delta)
        state[b, h, dks, dvs] = s
        o[b, h, dvs] = T.sum(s * (q[b, h, dks] * scale), axis=0)


KERNEL = gated_delta_decode


def _unit(rng, shape):
    x = rng.standard_normal(shape)
    return (x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-6)).astype(np.float32)


def inputs(shape, rng):
    B, H, DK, DV = shape["B"], shape["H"], shape["DK"], shape["DV"]
    return dict(state=rng.standard_normal((B, H, DK, DV)).astype(np.float32), q=_unit(rng, (B, H, DK)),
                k=_unit(rng, (B, H, DK)), v=rng.standard_normal((B, H, DV)).astype(np.float32),
                g=(-rng.random((B, H)) * 0.5).astype(np.float32),
                beta=(1.0 / (1.0 + np.exp(-rng.standard_normal((B, H))))).astype(np.float32))


def reference(state, q, k, v, g, beta):
    DK = state.shape[2]
    s = state.astype(np.float64) * np.exp(g.astype(np.float64))[..., None, None]
    pred = np.einsum("bhkv,bhk->bhv", s, k)
    delta = (v - pred) * beta[..., None]
    s = s + k[..., :, None] * delta[..., None, :]
    o = np.einsum("bhkv,bhk->bhv", s, q * DK ** -0.5)
    return dict(state=s, o=o)


def peer(state, q, k, v, g, beta):
    import torch
    DK = state.shape[2]
    state.mul_(g.exp()[..., None, None])
    pred = torch.einsum("bhkv,bhk->bhv", state, k)
    state.add_(k[..., :, None] * ((v - pred) * beta[..., None])[..., None, :])
    return dict(state=state, o=torch.einsum("bhkv,bhk->bhv", state, q * DK ** -0.5))


def OPS(shape):
    n = shape["B"] * shape["H"] * shape["DK"] * shape["DV"]
    return 8 * n, 8 * n


TEST_SHAPES = [dict(B=1, H=1, DK=3, DV=1), dict(B=2, H=3, DK=5, DV=7), dict(B=3, H=2, DK=16, DV=13)]
BENCH_SHAPE = dict(B=256, H=32, DK=128, DV=128)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch"
