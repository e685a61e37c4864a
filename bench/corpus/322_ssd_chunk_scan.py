"""Mamba-2 SSD chunk scan (mamba_ssm's _chunk_scan_fwd, without z): the output of each chunk of CS = 256
time steps from the state entering it and the chunk's own causal part. For x bf16 [B, L, H, P], Cm, Bm bf16
[B, L, G, N] (head h reads group h // (H / G)), dt, dA_cumsum f32 [B, H, NC, CS] (the chunk cumsum
kernel's), prev_states f32 [B, NC, H, P, N] (the state passing kernel's) and D f32 [H], for
t = c * CS + l < L: y[b, t, h, p] = exp(dA[l]) * sum_n Cm[t, n] prev_states[b, c, h, p, n]
+ sum over s <= l of (sum_n Cm[t, n] Bm[c * CS + s, n]) * exp(dA[l] - dA[s]) * dt[s] * x[c * CS + s, p]
+ D[h] * x[t, p], with dA = dA_cumsum[b, h, c] and dt = dt[b, h, c]; y f32 [B, L, H, P].
B8 L4096 H80 P64 G1 N128 CS256 (Mamba2-2.7B). Peer: torch.compile of mamba_ssm's chunk_scan_ref."""
import math

import numpy as np
import tessel
import tessel.language as T




@tessel.kernel
def ssd_chunk_scan(x: T.In[T.bf16, ("B", "L", "H", "P")], Cm: T.In[T.bf16, ("B", "L", "G", "N")],
                   Bm: T.In[T.bf16, ("B", "L", "G", "N")], dt: T.In[T.f32, ("B", "H", "NC", "CS")],
                   dA_cumsum: T.In[T.f32, ("B", "H", "NC", "CS")],
                   prev_states: T.In[T.f32, ("B", "NC", "H", "P", "N")], D: T.In[T.f32, ("H",)],
                   y: T.Out[T.f32, ("B", "L", "H", "P")]):
    B, L, H, P = x.shape
    G, N = Cm.shape[2], Cm.shape[3]
    NC, CS = dt.shape[2], dt.shape[3]
    steps, ps, ns = T.domain(0, CS), T.domain(0, P), T.domain(0, N)
    for b, c, h in T.parallel(T.domain(0, B), T.domain(0, NC), T.domain(0, H)):
        g = h // (H // G)
        pos = T.indices(steps)
        t = c * CS + pos
        inside = t < L
        cs = T.load(Cm, (b, t, g, ns), valid=T.broadcast(inside, over=(steps, ns), dims=[0]), fill=0.0)
        bs = T.load(Bm, (b, t, g, ns), valid=T.broadcast(inside, over=(steps, ns), dims=[0]), fill=0.0)
        xs = T.load(x, (b, t, h, ps), valid=T.broadcast(inside, over=(steps, ps), dims=[0]), fill=0.0)
        dA = dA_cumsum[b, h, c, steps]
        # the state entering the chunk, decayed to each step
        inter = T.matmul(T.cast(cs, T.f32), T.transpose(prev_states[b, c, h, ps, ns]))     # [CS, P]
        inter = inter * T.broadcast(T.exp(dA), over=(steps, ps), dims=[0])
        # the chunk's own causal part
        cb = T.matmul(cs, bs, transpose_rhs=True, acc_dtype=T.f32)                          # [l, s]
        causal = T.broadcast(pos, over=(steps, steps), dims=[0]) >= T.broadcast(pos, over=(steps, steps), dims=[1])
        seg = T.broadcast(dA, over=(steps, steps), dims=[0]) - T.broadcast(dA, over=(steps, steps), dims=[1])
        decay = T.exp(T.where(causal, seg, -math.inf))
        w = cb * decay * T.broadcast(dt[b, h, c, steps], over=(steps, steps), dims=[1])
        intra = T.matmul(T.cast(w, T.bf16), xs, acc_dtype=T.f32)                          # [CS, P]
        out = inter + intra + D[h] * T.cast(xs, T.f32)
        T.store(y, (b, t, h, ps), out, valid=T.broadcast(inside, over=(steps, ps), dims=[0]))


KERNEL = ssd_chunk_scan


def _bf16(a):
    a = np.ascontiguousarray(a, dtype=np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    B, L, H, P, G, N, NC, CS = (shape[k] for k in ("B", "L", "H", "P", "G", "N", "NC", "CS"))
    assert NC == -(-L // CS) and H % G == 0
    dt = np.log1p(np.exp(rng.standard_normal((B, H, NC, CS)) - 2.0)).astype(np.float32)
    t = np.arange(NC * CS).reshape(NC, CS)
    dt[:, :, t >= L] = 0.0
    A = -np.exp(rng.standard_normal(H) * 0.5)
    dA = np.cumsum(dt * A[None, :, None, None], axis=-1).astype(np.float32)
    return dict(x=rng.standard_normal((B, L, H, P)).astype(np.float32),
                Cm=rng.standard_normal((B, L, G, N)).astype(np.float32),
                Bm=rng.standard_normal((B, L, G, N)).astype(np.float32), dt=dt, dA_cumsum=dA,
                prev_states=(rng.standard_normal((B, NC, H, P, N)) * 0.5).astype(np.float32),
                D=rng.standard_normal(H).astype(np.float32))


def _pad(a, NC, CS):
    B, L = a.shape[:2]
    out = np.zeros((B, NC * CS) + a.shape[2:], a.dtype)
    out[:, :L] = a
    return out.reshape((B, NC, CS) + a.shape[2:])


def reference(x, Cm, Bm, dt, dA_cumsum, prev_states, D):
    B, L, H, P = x.shape
    G = Cm.shape[2]
    NC, CS = dt.shape[2], dt.shape[3]
    hg = np.arange(H) // (H // G)
    xs = _pad(x, NC, CS).astype(np.float64)                          # [B, NC, CS, H, P]
    cs = _pad(Cm, NC, CS)[:, :, :, hg].astype(np.float64)            # [B, NC, CS, H, N]
    bs = _pad(Bm, NC, CS)[:, :, :, hg].astype(np.float64)
    dA = dA_cumsum.transpose(0, 2, 3, 1)                         # [B, NC, CS, H]
    inter = np.einsum("bclhn,bchpn->bclhp", cs, prev_states) * np.exp(dA)[..., None]
    cb = np.einsum("bclhn,bcshn->bchls", cs, bs)
    dAh = dA_cumsum.transpose(0, 2, 1, 3)                        # [B, NC, H, CS]
    seg = dAh[..., :, None] - dAh[..., None, :]
    causal = np.tril(np.ones((CS, CS), bool))
    decay = np.exp(np.where(causal, seg, -np.inf))
    w = (cb * decay * dt.transpose(0, 2, 1, 3)[..., None, :]).astype(np.float32)
    intra = np.einsum("bchls,bcshp->bclhp", _bf16(w).astype(np.float64), xs)
    out = (inter + intra + D[None, None, None, :, None] * xs).reshape(B, NC * CS, H, P)[:, :L]
    return dict(y=out)


def peer(x, Cm, Bm, dt, dA_cumsum, prev_states, D):
    import torch
    import torch.nn.functional as F
    B, L, H, P = x.shape
    G = Cm.shape[2]
    NC, CS = dt.shape[2], dt.shape[3]
    pad = lambda a: F.pad(a, (0, 0, 0, 0, 0, NC * CS - L)).reshape((B, NC, CS) + a.shape[2:])
    xs = pad(x).float()
    cs = pad(Cm).repeat_interleave(H // G, dim=3).float()
    bs = pad(Bm).repeat_interleave(H // G, dim=3).float()
    dA = dA_cumsum.permute(0, 2, 3, 1)
    inter = torch.einsum("bclhn,bchpn->bclhp", cs, prev_states) * torch.exp(dA)[..., None]
    cb = torch.einsum("bclhn,bcshn->bchls", cs, bs)
    dAh = dA_cumsum.permute(0, 2, 1, 3)
    seg = dAh[..., :, None] - dAh[..., None, :]
    causal = torch.ones(CS, CS, dtype=torch.bool, device=x.device).tril()
    decay = torch.exp(seg.masked_fill(~causal, -torch.inf))
    w = cb * decay * dt.permute(0, 2, 1, 3)[..., None, :]
    intra = torch.einsum("bchls,bcshp->bclhp", w, xs)
    out = inter + intra + D[None, None, None, :, None] * xs
    return dict(y=out.reshape(B, NC * CS, H, P)[:, :L])


def OPS(shape):
    B, L, H, P, N = (shape[k] for k in ("B", "L", "H", "P", "N"))
    return 2 * B * L * H * (CS * (N + P) + N * P), \
        2 * B * L * (H * P + 2 * shape["G"] * N) + 4 * B * L * H * P + 4 * B * shape["NC"] * H * P * N


TEST_SHAPES = [dict(B=1, L=1, H=1, P=1, G=1, N=1, NC=1, CS=1), dict(B=1, L=7, H=2, P=5, G=1, N=3, NC=2, CS=4),
               dict(B=2, L=37, H=4, P=3, G=2, N=7, NC=3, CS=16),
               dict(B=1, L=0, H=2, P=3, G=1, N=2, NC=0, CS=4)]
BENCH_SHAPE = dict(B=8, L=4096, H=80, P=64, G=1, N=128, NC=16, CS=256)
TOLERANCE = dict(rtol=1e-2, atol=3e-2)   # the weights rounded to bf16 may round either way (exp's last bits)
BENCH_TOLERANCE = dict(rtol=2e-2, atol=1e-1)
PEER = "torch.compile"
