"""VAE reparameterization with its KL term (the encoder head of a VAE / a latent-diffusion autoencoder
during training): given mu, logvar f32 [B, D] and standard-normal noise f32 [B, D], the sample is
z = mu + exp(0.5 * logvar) * noise (f32 [B, D]) and each row's KL divergence from N(0, I) is
kl[b] = -0.5 * sum_d (1 + logvar - mu^2 - exp(logvar)) (f32 [B]). B64 D16384 (a 4x64x64 latent).
Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def vae_reparam_kl(mu: T.In[T.f32, ("B", "D")], logvar: T.In[T.f32, ("B", "D")], noise: T.In[T.f32, ("B", "D")],
                   z: T.Out[T.f32, ("B", "D")], kl: T.Out[T.f32, ("B",)]):
    B, D = mu.shape
    dims = T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        m, lv = mu[b, dims], logvar[b, dims]
        z[b, dims] = m + T.exp(0.5 * lv) * noise[b, dims]
        kl[b] = -0.5 * T.sum(1.0 + lv - m * m - T.exp(lv))


KERNEL = vae_reparam_kl


def inputs(shape, rng):
    s = (shape["B"], shape["D"])
    return dict(mu=rng.standard_normal(s).astype(np.float32), logvar=(0.5 * rng.standard_normal(s) - 0.5).astype(np.float32),
                noise=rng.standard_normal(s).astype(np.float32))


def reference(mu, logvar, noise):
    m, lv = mu.astype(np.float64), logvar.astype(np.float64)
    return dict(z=m + np.exp(0.5 * lv) * noise, kl=-0.5 * (1.0 + lv - m * m - np.exp(lv)).sum(axis=1))


def peer(mu, logvar, noise):
    import torch
    return dict(z=mu + torch.exp(0.5 * logvar) * noise, kl=-0.5 * (1 + logvar - mu * mu - logvar.exp()).sum(dim=1))


def OPS(shape):
    n = shape["B"] * shape["D"]
    return 9 * n, 16 * n + 4 * shape["B"]


TEST_SHAPES = [dict(B=1, D=1), dict(B=3, D=127), dict(B=17, D=1031)]
BENCH_SHAPE = dict(B=64, D=16384)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
