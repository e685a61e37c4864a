"""Rolling-window statistics of many time series (pandas' rolling(W, min_periods=1).mean() / .std(ddof=0),
as quant research and feature pipelines compute them on the GPU): for series s and time t the window
is x[s, max(t - W + 1, 0) .. t] (n = min(t + 1, W) values), mean[s, t] its average and std[s, t] the
square root of the average squared deviation from that mean (two-pass). x f32 [S, T], W a runtime
window length (i32, >= 1). S=8192 series, T=4096 steps, W=64. Peer: torch.compile of unfold over the
zero-padded series with a count for the first W - 1 steps."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rolling_mean_std(x: T.In[T.f32, ("S", "T")], mean: T.Out[T.f32, ("S", "T")], std: T.Out[T.f32, ("S", "T")],
                     W: T.i32):
    S, NT = x.shape
    times = T.domain(0, NT)
    w = T.cast(W, T.index)
    for s, t in T.parallel(T.domain(0, S), times):
        lo = T.maximum(t + 1 - w, 0)
        win = x[s, times[lo:t + 1]]
        n = T.cast(t + 1 - lo, T.f32)
        mu = T.sum(win) / n
        d = win - mu
        mean[s, t] = mu
        std[s, t] = T.sqrt(T.sum(d * d) / n)


KERNEL = rolling_mean_std


def inputs(shape, rng):
    S, NT = shape["S"], shape["T"]
    walk = np.cumsum(rng.standard_normal((S, NT)), axis=1) + 100.0     # price-like series
    return dict(x=walk.astype(np.float32), W=5 if NT < 64 else 64)


def reference(x, W):
    x = x.astype(np.float64)
    S, NT = x.shape
    mean, std = np.zeros_like(x), np.zeros_like(x)
    for t in range(NT):
        win = x[:, max(t - W + 1, 0):t + 1]
        mean[:, t] = win.mean(axis=1)
        std[:, t] = win.std(axis=1)
    return dict(mean=mean, std=std)


def peer(x, W):
    import torch
    S, NT = x.shape
    xp = torch.nn.functional.pad(x, (W - 1, 0))
    win = xp.unfold(1, W, 1)                                          # [S, T, W], zeros before t = 0
    valid = (torch.arange(NT, device=x.device)[:, None] - (W - 1) + torch.arange(W, device=x.device)[None, :]) >= 0
    n = valid.sum(dim=1).to(x.dtype)
    mu = win.sum(dim=2) / n
    d = torch.where(valid, win - mu[..., None], 0.0)
    return dict(mean=mu, std=((d * d).sum(dim=2) / n).sqrt())


def OPS(shape):
    n = shape["S"] * shape["T"]
    return 5 * 64 * n, 12 * n


TEST_SHAPES = [dict(S=1, T=1), dict(S=2, T=13), dict(S=5, T=131)]
BENCH_SHAPE = dict(S=8192, T=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
