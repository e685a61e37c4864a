"""Exponential moving average along time, per channel with its own decay: for x of shape [B, T, C]
(f32) and decay a[C] in (0, 1), h[b, t, c] = a[c] * h[b, t-1, c] + (1 - a[c]) * x[b, t, c], with
h[b, -1, c] = 0."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def ema(x: T.In[T.f32, ("B", "T", "C")],
        decay: T.In[T.f32, ("C",)],
        y: T.Out[T.f32, ("B", "T", "C")]):
    B, TT, C = x.shape
    chans = T.domain(0, C)
    a = decay[chans]
    for b in T.parallel(T.domain(0, B)):
        h = T.zeros(chans)
        for t in T.domain(0, TT):
            h = a * h + (1.0 - a) * x[b, t, chans]
            y[b, t, chans] = h


KERNEL = ema
CONSTEXPRS = {}


def inputs(shape, rng):
    B, TT, C = shape["B"], shape["T"], shape["C"]
    x = rng.standard_normal((B, TT, C)).astype(np.float32)
    decay = rng.uniform(0.5, 0.999, size=(C,)).astype(np.float32)
    return {"x": x, "decay": decay}


def reference(x, decay):
    x64 = x.astype(np.float64)
    a = decay.astype(np.float64)
    y = np.empty_like(x64)
    h = np.zeros((x.shape[0], x.shape[2]))
    for t in range(x.shape[1]):
        h = a * h + (1.0 - a) * x64[:, t, :]
        y[:, t, :] = h
    return {"y": y.astype(np.float32)}


def peer(x, decay, chunk=64):
    """Loop-free chunked formulation: within a chunk, a lower-triangular decay matrix; across chunks,
    the chunk-end states combined by a second (chunk-level) decay matrix."""
    import torch
    import torch.nn.functional as F
    B, TT, C = x.shape
    L = chunk
    pad = (-TT) % L
    xp = F.pad(x, (0, 0, 0, pad))
    NC = (TT + pad) // L
    xr = xp.view(B, NC, L, C)
    la = torch.log(decay)                                        # [C]
    i = torch.arange(L, device=x.device)
    d = (i[:, None] - i[None, :])                                # [L, L]
    W = torch.where(d >= 0, torch.exp(d.clamp(min=0)[None] * la[:, None, None]), 0.0)  # [C, L, L]
    u = (1.0 - decay) * xr
    y_loc = torch.einsum("cij,bnjc->bnic", W, u)                 # states from a zero start
    s = y_loc[:, :, -1, :]                                       # [B, NC, C]
    n = torch.arange(NC, device=x.device)
    e = (n[:, None] - 1 - n[None, :])                            # [NC, NC]
    V = torch.where(e >= 0, torch.exp((L * e.clamp(min=0))[None] * la[:, None, None]), 0.0)
    H = torch.einsum("cnm,bmc->bnc", V, s)                       # state entering each chunk
    p = torch.exp((i + 1)[:, None] * la[None, :])                # [L, C]: a^(i+1)
    y = y_loc + p[None, None] * H[:, :, None, :]
    return {"y": y.reshape(B, NC * L, C)[:, :TT]}


TEST_SHAPES = [dict(B=1, T=1, C=1), dict(B=2, T=37, C=13), dict(B=3, T=129, C=67),
               dict(B=1, T=1031, C=5)]
BENCH_SHAPE = dict(B=8, T=4096, C=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
BENCH_TOLERANCE = dict(rtol=1e-3, atol=1e-4)
PEER = "torch.compile (loop-free chunked formulation)"


def OPS(shape):
    n = shape["B"] * shape["T"] * shape["C"]
    return 3 * n, 8 * n + 4 * shape["C"]
