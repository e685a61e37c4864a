"""Volume rendering along rays (NeRF compositing): per ray r and sample s (sorted along the ray), density
sigma f32 [R, S] (>= 0), colors rgb f32 [R, S, 3] and sample spacings deltas f32 [R, S]; alpha_s = 1 -
exp(-sigma_s * delta_s), transmittance T_s = prod_{j<s} (1 - alpha_j) (T_0 = 1), weight w_s = T_s * alpha_s;
outputs color f32 [R, 3] = sum_s w_s rgb_s and the accumulated opacity acc f32 [R] = sum_s w_s.
R 2^18 S 192. Peer: torch.compile (cumprod form)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.fn
def mul(a: T.f32, b: T.f32) -> T.f32:
    return a * b


@tessel.kernel
def volume_render(sigma: T.In[T.f32, ("R", "S")], rgb: T.In[T.f32, ("R", "S", 3)],
                  deltas: T.In[T.f32, ("R", "S")], color: T.Out[T.f32, ("R", 3)], acc: T.Out[T.f32, ("R",)]):
    R, S = sigma.shape
    samples, chans = T.domain(0, S), T.domain(0, 3)
    for r in T.parallel(T.domain(0, R)):
        alpha = 1.0 - T.exp(-sigma[r, samples] * deltas[r, samples])
        trans = T.scan(1.0 - alpha, axis=0, identity=1.0, combine=mul, exclusive=True)
        w = trans * alpha
        color[r, chans] = T.sum(w * rgb[r, samples, chans], axis=0)
        acc[r] = T.sum(w)


KERNEL = volume_render


def inputs(shape, rng):
    R, S = shape["R"], shape["S"]
    sigma = np.abs(rng.standard_normal((R, S))) * rng.uniform(0.0, 3.0, (R, 1))
    sigma[:, ::5] = 0.0                                          # empty space between surfaces
    return dict(sigma=sigma.astype(np.float32), rgb=rng.uniform(0.0, 1.0, (R, S, 3)).astype(np.float32),
                deltas=rng.uniform(0.005, 0.05, (R, S)).astype(np.float32) * 4.0)


def reference(sigma, rgb, deltas):
    alpha = 1.0 - np.exp(-sigma.astype(np.float64) * deltas.astype(np.float64))
    R, S = sigma.shape
    trans = np.cumprod(np.concatenate([np.ones((R, 1)), 1.0 - alpha], axis=1), axis=1)[:, :S]
    w = trans * alpha
    return dict(color=(w[:, :, None] * rgb.astype(np.float64)).sum(axis=1), acc=w.sum(axis=1))


def peer(sigma, rgb, deltas):
    import torch
    alpha = 1.0 - torch.exp(-sigma * deltas)
    trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1.0 - alpha[:, :-1]], dim=1), dim=1)
    w = trans * alpha
    return dict(color=(w[:, :, None] * rgb).sum(dim=1), acc=w.sum(dim=1))


def OPS(shape):
    R, S = shape["R"], shape["S"]
    return R * S * 12, R * S * 20 + R * 16


TEST_SHAPES = [dict(R=0, S=5), dict(R=1, S=1), dict(R=3, S=7), dict(R=5, S=67), dict(R=2, S=193)]
BENCH_SHAPE = dict(R=2 ** 18, S=192)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
