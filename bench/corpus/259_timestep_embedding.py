"""Sinusoidal timestep embedding of a diffusion model (diffusers' Timesteps(flip_sin_to_cos=True,
downscale_freq_shift=0), as Stable Diffusion's UNet uses it): for timesteps t f32 [B] and an embedding
width D, with H = D // 2 frequencies f[i] = exp(-ln(10000) * i / H), out[b, i] = cos(t[b] * f[i]) and
out[b, H + i] = sin(t[b] * f[i]) for i < H, and a last column of zeros when D is odd; out f32 [B, D] (declared InOut, overwritten whole).
B16384 D1024 (a batch of video frames' timesteps). Peer: torch.compile."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def timestep_embedding(t: T.In[T.f32, ("B",)], out: T.InOut[T.f32, ("B", "D")]):
    B, D = out.shape
    H = D // 2
    dims, half = T.domain(0, D), T.domain(0, H)
    freqs = T.exp(-math.log(10000.0) * T.cast(T.indices(half), T.f32) / T.cast(H, T.f32))
    for b in T.parallel(T.domain(0, B)):
        arg = t[b] * freqs
        out[b, dims[0:H]] = T.cos(arg)
        out[b, dims[H:2 * H]] = T.sin(arg)
        out[b, dims[2 * H:D]] = 0.0


KERNEL = timestep_embedding


def inputs(shape, rng):
    # out is InOut only so that the width D reaches reference(): the kernel overwrites all of it
    return dict(t=rng.integers(0, 1000, shape["B"]).astype(np.float32),
                out=np.full((shape["B"], shape["D"]), 7.0, np.float32))


def reference(t, out):
    B, D = out.shape
    H = D // 2
    freqs = np.exp(-math.log(10000.0) * np.arange(H, dtype=np.float32) / np.float32(max(H, 1))).astype(np.float32)
    arg = (t[:, None] * freqs[None, :]).astype(np.float32).astype(np.float64)
    res = np.zeros((B, D))
    res[:, :H], res[:, H:2 * H] = np.cos(arg), np.sin(arg)
    return dict(out=res)


def peer(t, out):
    import torch
    D = out.shape[1]
    H = D // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(H, dtype=torch.float32, device=t.device) / H)
    arg = t[:, None] * freqs[None, :]
    emb = torch.cat([torch.cos(arg), torch.sin(arg)], dim=-1)
    return dict(out=torch.nn.functional.pad(emb, (0, D % 2)))


def OPS(shape):
    n = shape["B"] * shape["D"]
    return 2 * n, 4 * n + 4 * shape["B"]


TEST_SHAPES = [dict(B=1, D=1), dict(B=3, D=14), dict(B=17, D=263)]
BENCH_SHAPE = dict(B=16384, D=1024)
TOLERANCE = dict(rtol=1e-3, atol=2e-3)
PEER = "torch.compile"
