"""Rotary embedding in the GPT-J (interleaved) convention: x [B, S, H, D] bf16, cos/sin [S, D/2] f32; each
adjacent pair (x[..., 2i], x[..., 2i+1]) is rotated by angle i of position s:
out[..., 2i] = x[..., 2i] cos - x[..., 2i+1] sin, out[..., 2i+1] = x[..., 2i+1] cos + x[..., 2i] sin;
out bf16, same shape. B=4 S=4096 H=32 D=128. Peer: torch.compile of the view-as-pairs spelling."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gptj_rope_interleaved(x: T.In[T.bf16, ("B", "S", "H", "D")],
                          cos: T.In[T.f32, ("S", "D2")], sin: T.In[T.f32, ("S", "D2")],
                          out: T.Out[T.bf16, ("B", "S", "H", "D")]):
    B, S, H, D = x.shape                      # D == 2 * D2 (asserted by the caller)
    pairs = T.domain(0, cos.shape[1])
    ev = 2 * T.indices(pairs)                 # even lane of each pair
    for b, s, h in T.parallel(T.domain(0, B), T.domain(0, S), T.domain(0, H)):
        x0 = T.cast(x[b, s, h, ev], T.f32)
        x1 = T.cast(x[b, s, h, ev + 1], T.f32)
        c, sn = cos[s, pairs], sin[s, pairs]
        out[b, s, h, ev] = T.cast(x0 * c - x1 * sn, T.bf16)
        out[b, s, h, ev + 1] = T.cast(x1 * c + x0 * sn, T.bf16)


KERNEL = gptj_rope_interleaved
CONSTEXPRS = {}


def inputs(shape, rng):
    B, S, H, D, D2 = (shape[n] for n in ("B", "S", "H", "D", "D2"))
    assert D == 2 * D2
    inv = 1.0 / (10000.0 ** (np.arange(D2) * 2.0 / D))
    ang = np.arange(S)[:, None] * inv[None, :]
    return dict(x=rng.standard_normal((B, S, H, D)).astype(np.float32),
                cos=np.cos(ang).astype(np.float32), sin=np.sin(ang).astype(np.float32))


def reference(x, cos, sin):
    xd = x.astype(np.float64)
    x0, x1 = xd[..., 0::2], xd[..., 1::2]
    c = cos.astype(np.float64)[None, :, None, :]
    s = sin.astype(np.float64)[None, :, None, :]
    out = np.empty_like(xd)
    out[..., 0::2] = x0 * c - x1 * s
    out[..., 1::2] = x1 * c + x0 * s
    return dict(out=out)


def peer(x, cos, sin):
    import torch
    xp = x.float().unflatten(-1, (-1, 2))
    x0, x1 = xp[..., 0], xp[..., 1]
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return dict(out=torch.stack((x0 * c - x1 * s, x1 * c + x0 * s), dim=-1).flatten(-2).to(x.dtype))


def _shape(B, S, H, D):
    return dict(B=B, S=S, H=H, D=D, D2=D // 2)


TEST_SHAPES = [_shape(1, 1, 1, 2), _shape(2, 7, 3, 6), _shape(1, 13, 5, 130), _shape(3, 5, 2, 128)]
BENCH_SHAPE = _shape(4, 4096, 32, 128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    B, S, H, D = (shape[n] for n in ("B", "S", "H", "D"))
    return 3 * B * S * H * D, 2 * 2 * B * S * H * D + 2 * 4 * S * D // 2
