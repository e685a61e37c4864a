"""Mamba-2 SSD state passing (mamba_ssm's _state_passing_fwd): the state entering each chunk, from the
chunks' own states (states f32 [B, NC, H, D], D = P * N flattened), each chunk's total decay dA_last f32
[B, H, NC] (dA_cumsum at the chunk's last step) and the initial state init f32 [B, H, D]: s_0 = init,
s_{c+1} = exp(dA_last[b, h, c]) * s_c + states[b, c, h]; outputs out[b, c, h] = s_c (the state entering
chunk c) f32 [B, NC, H, D] and final[b, h] = s_NC f32 [B, H, D]. B8 NC16 H80 D8192 (Mamba2-2.7B, P64 N128,
4096 tokens in chunks of 256). Peer: torch.compile of mamba_ssm's state_passing_ref (a loop over the
chunks)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def ssd_state_passing(states: T.In[T.f32, ("B", "NC", "H", "D")], dA_last: T.In[T.f32, ("B", "H", "NC")],
                      init: T.In[T.f32, ("B", "H", "D")], out: T.Out[T.f32, ("B", "NC", "H", "D")],
                      final: T.Out[T.f32, ("B", "H", "D")]):
    B, NC, H, D = states.shape
    dims = T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        s = init[b, h, dims]
        final[b, h, dims] = s                       # no chunks (NC = 0): the initial state
        for c in T.domain(0, NC):
            out[b, c, h, dims] = s
            s = T.exp(dA_last[b, h, c]) * s + states[b, c, h, dims]
            final[b, h, dims] = s


KERNEL = ssd_state_passing


def inputs(shape, rng):
    B, NC, H, D = shape["B"], shape["NC"], shape["H"], shape["D"]
    return dict(states=rng.standard_normal((B, NC, H, D)).astype(np.float32),
                dA_last=(-np.exp(rng.standard_normal((B, H, NC)))).astype(np.float32),
                init=rng.standard_normal((B, H, D)).astype(np.float32))


def reference(states, dA_last, init):
    B, NC, H, D = states.shape
    s = init.astype(np.float64)
    out = np.empty((B, NC, H, D))
    for c in range(NC):
        out[:, c] = s
        s = np.exp(dA_last[:, :, c].astype(np.float64))[..., None] * s + states[:, c]
    return dict(out=out, final=s)


def peer(states, dA_last, init):
    import torch
    NC = states.shape[1]
    s = init
    out = []
    for c in range(NC):
        out.append(s)
        s = torch.exp(dA_last[:, :, c])[..., None] * s + states[:, c]
    return dict(out=torch.stack(out, dim=1), final=s)


def OPS(shape):
    n = shape["B"] * shape["NC"] * shape["H"] * shape["D"]
    return 2 * n, 12 * n


TEST_SHAPES = [dict(B=1, NC=1, H=1, D=1), dict(B=2, NC=3, H=3, D=37), dict(B=1, NC=5, H=2, D=131),
               dict(B=1, NC=0, H=2, D=5)]
BENCH_SHAPE = dict(B=8, NC=16, H=80, D=8192)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"
