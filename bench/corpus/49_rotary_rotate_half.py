"""Rotary embedding, rotate-half (GPT-NeoX) style, on Q [B, H, S, D] with cos/sin tables [S, D/2]:
out[..., :D/2] = x1 * cos - x2 * sin, out[..., D/2:] = x2 * cos + x1 * sin, where x1 = x[..., :D/2]
and x2 = x[..., D/2:]. bf16 in and out (math in f32), B4 H32 S4096 D128. Peer: torch.compile of the
usual rotate_half code."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rotary_rotate_half(q: T.In[T.bf16, ("B", "H", "S", "D")],
                       cos: T.In[T.bf16, ("S", "D2")],
                       sin: T.In[T.bf16, ("S", "D2")],
                       out: T.Out[T.bf16, ("B", "H", "S", "D")]):
    B, H, S, D = q.shape
    D2 = cos.shape[1]                          # D == 2 * D2 (not checked by tessel; asserted by caller)
    dims = T.domain(0, D)
    half = T.domain(0, D2)
    lo, hi = dims[0:D2], dims[D2:2 * D2]
    for b, h, s in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        x1 = T.cast(q[b, h, s, lo], T.f32)
        x2 = T.cast(q[b, h, s, hi], T.f32)
        c = T.cast(cos[s, half], T.f32)
        sn = T.cast(sin[s, half], T.f32)
        out[b, h, s, lo] = T.cast(x1 * c - x2 * sn, T.bf16)
        out[b, h, s, hi] = T.cast(x2 * c + x1 * sn, T.bf16)


KERNEL = rotary_rotate_half
CONSTEXPRS = {}


def _bf16(a):
    """Round to bfloat16 (nearest even), returned as float64."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def inputs(shape, rng):
    B, H, S, D, D2 = shape["B"], shape["H"], shape["S"], shape["D"], shape["D2"]
    assert D == 2 * D2
    inv = 1.0 / (10000.0 ** (np.arange(D2, dtype=np.float64) / D2))
    ang = np.arange(S, dtype=np.float64)[:, None] * inv[None, :]
    return dict(q=rng.standard_normal((B, H, S, D)).astype(np.float32),
                cos=np.cos(ang).astype(np.float32),
                sin=np.sin(ang).astype(np.float32))


def reference(q, cos, sin):
    x, c, s = _bf16(q), _bf16(cos), _bf16(sin)
    D2 = c.shape[1]
    x1, x2 = x[..., :D2], x[..., D2:]
    return dict(out=np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1))


def peer(q, cos, sin):
    import torch

    def rotate_half(x):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)

    c = torch.cat((cos, cos), dim=-1)          # [S, D], as HF models hold it
    s = torch.cat((sin, sin), dim=-1)
    return dict(out=q * c + rotate_half(q) * s)


TEST_SHAPES = [dict(B=1, H=1, S=1, D=2, D2=1), dict(B=2, H=3, S=7, D=10, D2=5),
               dict(B=1, H=5, S=31, D=34, D2=17), dict(B=3, H=2, S=13, D=128, D2=64)]
BENCH_SHAPE = dict(B=4, H=32, S=4096, D=128, D2=64)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile (rotate_half)"


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return 3 * B * H * S * D, 2 * B * H * S * D * 2 + 2 * S * D
