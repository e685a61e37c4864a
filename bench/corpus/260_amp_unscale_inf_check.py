"""Mixed-precision gradient unscaling with the overflow check (torch.amp.GradScaler.unscale_, i.e.
torch._amp_foreach_non_finite_check_and_unscale_ on one flat buffer): grads f32 [N] are multiplied in
place by inv_scale[0] (f32 [1], a device tensor: 1 / the loss scale), and found_inf[0] (f32 [1], in place)
is set to 1.0 when any gradient is inf or NaN, else left as it was. N 2^27 (a 128M-parameter model's
flat gradients). Peer: torch._amp_foreach_non_finite_check_and_unscale_."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def amp_unscale_inf_check(grads: T.InOut[T.f32, ("N",)], found_inf: T.InOut[T.f32, (1,)],
                          inv_scale: T.In[T.f32, (1,)]):
    N = grads.shape[0]
    elems = T.domain(0, N)
    g = grads[elems]
    grads[elems] = g * inv_scale[0]
    bad = T.any(~(T.abs(g) < math.inf))
    found_inf[0] = T.where(bad, 1.0, found_inf[0])


KERNEL = amp_unscale_inf_check
# docs/language.md (Kernel level and T.parallel) lets a kernel-level store update a view in place from its own
# element read at the same coordinates; here at the scalar coordinate 0 (260_amp_unscale_inf_check_b writes
# found_inf through a one-member domain).


def inputs(shape, rng):
    N = shape["N"]
    g = (rng.standard_normal(N) * 65536.0).astype(np.float32)
    if N == 127:
        g[rng.integers(0, N)] = np.nan
    if N == 263:
        g[rng.integers(0, N)] = -np.inf
    return dict(grads=g, found_inf=np.zeros(1, np.float32), inv_scale=np.array([1.0 / 65536.0], np.float32))


def reference(grads, found_inf, inv_scale):
    bad = not np.isfinite(grads).all()
    return dict(grads=grads * inv_scale[0], found_inf=np.array([1.0]) if bad else found_inf.astype(np.float64))


def peer(grads, found_inf, inv_scale):
    import torch
    torch._amp_foreach_non_finite_check_and_unscale_([grads], found_inf, inv_scale)
    return dict(grads=grads, found_inf=found_inf)


def OPS(shape):
    return 2 * shape["N"], 8 * shape["N"]


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=263), dict(N=1031)]
BENCH_SHAPE = dict(N=2 ** 27)
TOLERANCE = dict(rtol=1e-6, atol=0.0)
PEER = "torch._amp_foreach_non_finite_check_and_unscale_"
