"""Weight-norm reparameterization (torch.nn.utils.weight_norm / parametrizations.weight_norm, dim 0):
the effective weight of a linear layer is w[o, :] = g[o] * v[o, :] / ||v[o, :]||_2, for the direction
v f32 [O, I] and the magnitude g f32 [O]; w f32 [O, I]. Recomputed every forward step in training (WaveNet
vocoders, HiFi-GAN, Wav2Vec2's positional conv use it). O4096 I4096. Peer: torch.compile of torch._weight_norm."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def weight_norm_reparam(v: T.In[T.f32, ("O", "I")], g: T.In[T.f32, ("O",)], w: T.Out[T.f32, ("O", "I")]):
    O, I = v.shape
    cols = T.domain(0, I)
    for o in T.parallel(T.domain(0, O)):
        row = v[o, cols]
        norm = T.sqrt(T.sum(row * row))
        w[o, cols] = row * (g[o] / norm)


KERNEL = weight_norm_reparam


def inputs(shape, rng):
    O, I = shape["O"], shape["I"]
    return dict(v=rng.standard_normal((O, I)).astype(np.float32),
                g=(rng.random(O) + 0.5).astype(np.float32))


def reference(v, g):
    v64 = v.astype(np.float64)
    return dict(w=v64 * (g[:, None] / np.sqrt((v64 * v64).sum(axis=1, keepdims=True))))


def peer(v, g):
    import torch
    return dict(w=torch._weight_norm(v, g.unsqueeze(1), 0))


def OPS(shape):
    n = shape["O"] * shape["I"]
    return 3 * n, 8 * n + 4 * shape["O"]


TEST_SHAPES = [dict(O=1, I=1), dict(O=3, I=127), dict(O=17, I=1031)]
BENCH_SHAPE = dict(O=4096, I=4096)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"
