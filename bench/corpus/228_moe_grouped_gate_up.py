"""MoE grouped gate/up projection: tokens already sorted by expert, expert_offsets [E+1] int32 (expert
e owns rows expert_offsets[e]:expert_offsets[e+1]); for the tokens of expert e,
out = silu(x @ Wg[e]) * (x @ Wu[e]); x [T, K] bf16, Wg, Wu [E, K, F] bf16, out [T, F] bf16.
T=16384 E=8 K=4096 F=2048 (random expert sizes summing to T). Peer: torch.compile (a loop over experts)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def moe_grouped_gate_up(x: T.In[T.bf16, ("T", "K")], wg: T.In[T.bf16, ("E", "K", "F")],
                        wu: T.In[T.bf16, ("E", "K", "F")], expert_offsets: T.In[T.i32, ("E1",)],
                        out: T.Out[T.bf16, ("T", "F")]):
    Tn, K = x.shape
    E, _, F = wg.shape                             # expert_offsets has E + 1 entries
    toks, ks, fs = T.domain(0, Tn), T.domain(0, K), T.domain(0, F)
    for e in T.parallel(T.domain(0, E)):
        mine = toks[expert_offsets[e]:expert_offsets[e + 1]]      # may be empty
        gate = T.matmul(x[mine, ks], wg[e, ks, fs])               # f32 [tokens of e, F]
        up = T.matmul(x[mine, ks], wu[e, ks, fs])
        out[mine, fs] = T.cast(gate * T.sigmoid(gate) * up, T.bf16)


KERNEL = moe_grouped_gate_up
CONSTEXPRS = {}


def inputs(shape, rng):
    Tn, K, E, F = shape["T"], shape["K"], shape["E"], shape["F"]
    assert shape["E1"] == E + 1
    sizes = rng.multinomial(Tn, rng.dirichlet(np.ones(E))) if E > 1 else np.array([Tn])
    if E > 2:
        sizes[-1] += sizes[1]                      # one expert gets no tokens
        sizes[1] = 0
    return dict(x=rng.standard_normal((Tn, K), dtype=np.float32),
                wg=rng.standard_normal((E, K, F), dtype=np.float32) / np.float32(math.sqrt(K)),
                wu=rng.standard_normal((E, K, F), dtype=np.float32) / np.float32(math.sqrt(K)),
                expert_offsets=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32))


def reference(x, wg, wu, expert_offsets):
    x, wg, wu = (np.asarray(t, np.float64) for t in (x, wg, wu))
    out = np.zeros((x.shape[0], wg.shape[2]))
    for e in range(wg.shape[0]):
        lo, hi = expert_offsets[e], expert_offsets[e + 1]
        g, u = x[lo:hi] @ wg[e], x[lo:hi] @ wu[e]
        out[lo:hi] = g / (1.0 + np.exp(-g)) * u
    return dict(out=out)


def peer(x, wg, wu, expert_offsets):
    import torch
    out = torch.empty((x.shape[0], wg.shape[2]), dtype=x.dtype, device=x.device)
    offs = expert_offsets.tolist()
    for e in range(wg.shape[0]):
        xe = x[offs[e]:offs[e + 1]]
        out[offs[e]:offs[e + 1]] = torch.nn.functional.silu(xe @ wg[e]) * (xe @ wu[e])
    return dict(out=out)


def _shape(Tn, E, K, F):
    return dict(T=Tn, E=E, E1=E + 1, K=K, F=F)


TEST_SHAPES = [_shape(1, 1, 1, 1), _shape(13, 3, 17, 5), _shape(67, 5, 33, 29), _shape(130, 4, 70, 19)]
BENCH_SHAPE = _shape(16384, 8, 4096, 2048)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    Tn, E, K, F = shape["T"], shape["E"], shape["K"], shape["F"]
    return 4 * Tn * K * F, 2 * (Tn * K + 2 * E * K * F + Tn * F)
