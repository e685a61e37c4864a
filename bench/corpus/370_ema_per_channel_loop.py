"""Exponential moving average over time, per channel (an EMA smoother, the decay of S4/Mega-style EMA
layers): x f32 [B, T, C], a f32 [C] in (0, 1); y[b, t, c] = a[c] * y[b, t - 1, c] + (1 - a[c]) * x[b, t, c]
with y[b, -1, c] = 0, written as the recurrence it is: a loop over time carrying the [C] state per batch
row. y f32 [B, T, C]. B8 T2048 C1024. Peer: torch.compile of a loop-free chunked form (within chunks of 64
steps a lower-triangular decay matrix, across chunks a second one over the chunk-end states)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def ema_loop(x: T.In[T.f32, ("B", "T", "C")], a: T.In[T.f32, ("C",)], y: T.Out[T.f32, ("B", "T", "C")]):
    B, TT, C = x.shape
    chans = T.domain(0, C)
    for b in T.parallel(T.domain(0, B)):
        decay = a[chans]
        h = T.zeros(chans)
        for t in T.domain(0, TT):
            h = decay * h + (1.0 - decay) * x[b, t, chans]
            y[b, t, chans] = h


KERNEL = ema_loop


def inputs(shape, rng):
    B, TT, C = shape["B"], shape["T"], shape["C"]
    return dict(x=rng.standard_normal((B, TT, C)).astype(np.float32),
                a=rng.uniform(0.5, 0.999, C).astype(np.float32))


def reference(x, a):
    B, TT, C = x.shape
    y = np.zeros((B, TT, C))
    h = np.zeros((B, C))
    a64 = a.astype(np.float64)
    for t in range(TT):
        h = a64 * h + (1.0 - a64) * x[:, t, :]
        y[:, t, :] = h
    return dict(y=y)


def peer(x, a, chunk=64):
    import torch
    import torch.nn.functional as F
    B, TT, C = x.shape
    L = chunk
    pad = (-TT) % L
    NC = (TT + pad) // L
    u = ((1.0 - a) * F.pad(x, (0, 0, 0, pad))).view(B, NC, L, C)
    la = torch.log(a)                                                   # [C]
    i = torch.arange(L, device=x.device)
    d = i[:, None] - i[None, :]
    Wl = torch.where(d >= 0, torch.exp(d.clamp(min=0)[None] * la[:, None, None]), 0.0)     # [C, L, L]
    local = torch.einsum("cts,bnsc->bntc", Wl, u)                       # within-chunk states
    n = torch.arange(NC, device=x.device)
    dn = n[:, None] - n[None, :]
    Wc = torch.where(dn >= 0, torch.exp((dn.clamp(min=0) * L)[None] * la[:, None, None]), 0.0)  # [C, NC, NC]
    ends = torch.einsum("cnm,bmc->bnc", Wc, local[:, :, L - 1, :])       # state at each chunk end
    prev = F.pad(ends, (0, 0, 1, 0))[:, :NC]                           # state entering each chunk
    carry = torch.exp((i + 1)[:, None].float() * la[None, :])          # a^(t+1), [L, C]
    yv = local + carry[None, None] * prev[:, :, None, :]
    return dict(y=yv.reshape(B, NC * L, C)[:, :TT])


def OPS(shape):
    B, TT, C = shape["B"], shape["T"], shape["C"]
    return 3 * B * TT * C, 8 * B * TT * C + 4 * C


TEST_SHAPES = [dict(B=0, T=3, C=5), dict(B=1, T=1, C=1), dict(B=2, T=0, C=3), dict(B=2, T=67, C=7),
               dict(B=3, T=131, C=33)]
BENCH_SHAPE = dict(B=8, T=2048, C=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
BENCH_TOLERANCE = dict(rtol=1e-3, atol=1e-4)
PEER = "torch.compile"
