"""Mamba-2 SSD chunk cumsum (mamba_ssm's _chunk_cumsum_fwd, the first of the chunked scan's kernels): for
dt_raw f32 [B, L, H], dt_bias [H] and A [H] (negative), per (b, h) and chunk c of CS = 256 time steps,
dt = softplus(dt_raw[b, t, h] + dt_bias[h]) (torch's softplus: linear past 20) for t = c * CS + l < L and
0 past the sequence's end (the last chunk is partial); outputs dt_out[b, h, c, l] = dt and
dA_cumsum[b, h, c, l] = the inclusive cumulative sum of dt * A[h] over l within the chunk, both f32
[B, H, NC, CS] with NC = ceil(L / CS). B8 L4096 H80 (Mamba2-2.7B). Peer: torch.compile of the reference
(pad, softplus, reshape into chunks, cumsum)."""
import numpy as np
import tessel
import tessel.language as T

CS = 256


@tessel.kernel
def ssd_chunk_cumsum(dt_raw: T.In[T.f32, ("B", "L", "H")], dt_bias: T.In[T.f32, ("H",)],
                     A: T.In[T.f32, ("H",)], dt_out: T.Out[T.f32, ("B", "H", "NC", CS)],
                     dA_cumsum: T.Out[T.f32, ("B", "H", "NC", CS)]):
    B, L, H = dt_raw.shape
    NC = dt_out.shape[2]
    steps = T.domain(0, CS)
    for b, h, c in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, NC)):
        t = c * CS + T.indices(steps)
        inside = t < L
        raw = T.load(dt_raw, (b, t, h), valid=inside, fill=0.0) + dt_bias[h]
        dt = T.where(inside, T.where(raw > 20.0, raw, T.log1p(T.exp(raw))), 0.0)
        dt_out[b, h, c, steps] = dt
        dA_cumsum[b, h, c, steps] = T.cumsum(dt * A[h])


KERNEL = ssd_chunk_cumsum


def inputs(shape, rng):
    B, L, H, NC = shape["B"], shape["L"], shape["H"], shape["NC"]
    assert NC == -(-L // CS)
    return dict(dt_raw=(rng.standard_normal((B, L, H)) * 2.0 - 1.0).astype(np.float32),
                dt_bias=rng.standard_normal(H).astype(np.float32),
                A=(-np.exp(rng.standard_normal(H))).astype(np.float32))


def reference(dt_raw, dt_bias, A):
    B, L, H = dt_raw.shape
    NC = -(-L // CS)
    raw = dt_raw.astype(np.float64) + dt_bias[None, None, :]
    sp = np.where(raw > 20.0, raw, np.log1p(np.exp(np.minimum(raw, 20.0))))
    dt = np.zeros((B, NC * CS, H))
    dt[:, :L] = sp
    dt = dt.reshape(B, NC, CS, H).transpose(0, 3, 1, 2)               # [B, H, NC, CS]
    return dict(dt_out=dt, dA_cumsum=np.cumsum(dt * A[None, :, None, None], axis=-1))


def peer(dt_raw, dt_bias, A):
    import torch
    import torch.nn.functional as F
    B, L, H = dt_raw.shape
    NC = -(-L // CS)
    dt = F.softplus(dt_raw + dt_bias)
    dt = F.pad(dt, (0, 0, 0, NC * CS - L))
    dt = dt.reshape(B, NC, CS, H).permute(0, 3, 1, 2).contiguous()
    return dict(dt_out=dt, dA_cumsum=torch.cumsum(dt * A[None, :, None, None], dim=-1))


def OPS(shape):
    n = shape["B"] * shape["H"] * shape["NC"] * CS
    return 6 * n, 4 * shape["B"] * shape["L"] * shape["H"] + 8 * n


TEST_SHAPES = [dict(B=1, L=1, H=1, NC=1), dict(B=1, L=37, H=2, NC=1), dict(B=1, L=263, H=2, NC=2),
               dict(B=1, L=0, H=2, NC=0)]
BENCH_SHAPE = dict(B=8, L=4096, H=80, NC=16)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"
