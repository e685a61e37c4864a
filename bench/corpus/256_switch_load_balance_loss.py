"""MoE router auxiliary losses (Switch Transformer / HF SwitchTransformers, top-1 routing): for router
logits f32 [T, E] (T tokens, E experts), p = softmax over the experts of each token, the chosen expert is
each token's argmax (the lowest on ties); f[e] = the fraction of tokens whose chosen expert is e, P[e] =
the mean over tokens of p[:, e]; aux[0] = E * sum_e f[e] * P[e] (the load-balancing loss), and z[0] = mean
over tokens of logsumexp(logits[t])^2 (the router z-loss, ST-MoE). T65536 E64. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def switch_load_balance_loss(logits: T.In[T.f32, ("T", "E")], aux: T.Out[T.f32, (1,)], z: T.Out[T.f32, (1,)]):
    NT, E = logits.shape
    toks, experts = T.domain(0, NT), T.domain(0, E)
    x = logits[toks, experts]
    mx = T.max(x, axis=1)
    e = T.exp(x - mx)
    den = T.sum(e, axis=1)
    p = e / den
    _, top = T.argmax(x, axis=1)
    chosen = T.broadcast(top, over=(toks, experts), dims=[0]) == T.broadcast(T.indices(experts), over=(toks, experts), dims=[1])
    nt = T.cast(NT, T.f32)
    frac = T.sum(T.where(chosen, 1.0, 0.0, dtype=T.f32), axis=0) / nt
    pmean = T.sum(p, axis=0) / nt
    aux[0] = T.cast(E, T.f32) * T.sum(frac * pmean)
    lse = mx + T.log(den)
    z[0] = T.sum(lse * lse) / nt


KERNEL = switch_load_balance_loss


def inputs(shape, rng):
    return dict(logits=(2.0 * rng.standard_normal((shape["T"], shape["E"]))).astype(np.float32))


def reference(logits):
    x = logits.astype(np.float64)
    NT, E = x.shape
    mx = x.max(axis=1, keepdims=True)
    e = np.exp(x - mx)
    p = e / e.sum(axis=1, keepdims=True)
    frac = np.bincount(x.argmax(axis=1), minlength=E) / NT
    lse = mx[:, 0] + np.log(e.sum(axis=1))
    return dict(aux=np.array([E * (frac * p.mean(axis=0)).sum()]), z=np.array([(lse * lse).mean()]))


def peer(logits):
    import torch
    E = logits.shape[1]
    p = torch.softmax(logits, dim=-1)
    f = torch.nn.functional.one_hot(logits.argmax(dim=-1), E).float().mean(dim=0)
    lse = torch.logsumexp(logits, dim=-1)
    return dict(aux=(E * (f * p.mean(dim=0)).sum()).reshape(1), z=(lse * lse).mean().reshape(1))


def OPS(shape):
    n = shape["T"] * shape["E"]
    return 8 * n, 4 * n


TEST_SHAPES = [dict(T=1, E=1), dict(T=7, E=3), dict(T=37, E=5)]
BENCH_SHAPE = dict(T=65536, E=64)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
