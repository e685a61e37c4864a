"""Per-feature piecewise-linear calibration (the calibrator layers of lattice / GAM-style models, and the
learned per-feature curves of tabular networks): x f32 [N, D], shared sorted breakpoints xp f32 [P]
(strictly increasing), per-feature values fp f32 [D, P]; y[n, d] = the linear interpolation of fp[d] at
x[n, d] over xp, clamped to fp[d, 0] / fp[d, P-1] outside [xp[0], xp[P-1]] (np.interp semantics), f32
[N, D]. N65536 D256 P64. Peer: torch.compile (searchsorted + gather + lerp)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def pwl_calibrate(x: T.In[T.f32, ("N", "D")], xp: T.In[T.f32, ("P",)], fp: T.In[T.f32, ("D", "P")],
                  y: T.Out[T.f32, ("N", "D")]):
    N, D = x.shape
    P = xp.shape[0]
    feats, knots = T.domain(0, D), T.domain(0, P)
    cuts = T.broadcast(xp[knots], over=(feats, knots), dims=[1])
    for n in T.parallel(T.domain(0, N)):
        v = x[n, feats]
        below = T.sum(T.cast(cuts <= v, T.i32), axis=1)            # breakpoints at or below v
        seg = T.minimum(T.maximum(T.cast(below, T.index) - 1, 0), P - 2)   # segment [seg, seg + 1]
        x0, x1 = xp[seg], xp[seg + 1]
        f0, f1 = fp[feats, seg], fp[feats, seg + 1]
        u = T.minimum(T.maximum((v - x0) / (x1 - x0), 0.0), 1.0)
        y[n, feats] = f0 + u * (f1 - f0)


KERNEL = pwl_calibrate


def inputs(shape, rng):
    N, D, P = shape["N"], shape["D"], shape["P"]
    assert P >= 2
    xp = np.cumsum(rng.uniform(0.05, 1.0, P)) - 0.3 * P * 0.5
    lo, hi = xp[0], xp[-1]
    x = rng.uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo), (N, D))
    if N * D:                                                       # some values exactly on breakpoints
        flat = x.reshape(-1)
        at = rng.integers(0, flat.size, max(1, flat.size // 16))
        flat[at] = xp[rng.integers(0, P, at.size)]
    return dict(x=x.astype(np.float32), xp=xp.astype(np.float32),
                fp=rng.standard_normal((D, P)).astype(np.float32))


def reference(x, xp, fp):
    y = np.empty(x.shape)
    for d in range(x.shape[1]):
        y[:, d] = np.interp(x[:, d].astype(np.float64), xp.astype(np.float64), fp[d].astype(np.float64))
    return dict(y=y)


def peer(x, xp, fp):
    import torch
    P = xp.shape[0]
    seg = (torch.searchsorted(xp, x.contiguous(), right=True) - 1).clamp(0, P - 2)
    x0, x1 = xp[seg], xp[seg + 1]
    cols = torch.arange(x.shape[1], device=x.device)[None, :].expand_as(seg)
    f0, f1 = fp[cols, seg], fp[cols, seg + 1]
    u = ((x - x0) / (x1 - x0)).clamp(0.0, 1.0)
    return dict(y=f0 + u * (f1 - f0))


def OPS(shape):
    N, D, P = shape["N"], shape["D"], shape["P"]
    return N * D * (6 + 6), 8 * N * D + 4 * P + 4 * D * P


TEST_SHAPES = [dict(N=0, D=3, P=2), dict(N=1, D=1, P=2), dict(N=7, D=5, P=3), dict(N=37, D=19, P=67)]
BENCH_SHAPE = dict(N=65536, D=256, P=64)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
