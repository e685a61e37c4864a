"""Residual with layer scale and stochastic depth: out = x + keep_mask[b] / keep_prob * (gamma[c] * y);
x, y [B, N, C] bf16, gamma [C] f32, keep_mask [B] f32 (0 or 1), keep_prob a runtime f32 scalar, out bf16.
B=64 N=1024 C=1024. Peer: torch.compile (timm's drop_path + LayerScale)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def layerscale_drop_path(x: T.In[T.bf16, ("B", "N", "C")], y: T.In[T.bf16, ("B", "N", "C")],
                         gamma: T.In[T.f32, ("C",)], keep_mask: T.In[T.f32, ("B",)],
                         out: T.Out[T.bf16, ("B", "N", "C")], keep_prob: T.f32):
    B, N, C = x.shape
    bs, ns, cs = T.domain(0, B), T.domain(0, N), T.domain(0, C)
    branch = gamma[cs] * T.cast(y[bs, ns, cs], T.f32)
    out[bs, ns, cs] = T.cast(T.cast(x[bs, ns, cs], T.f32) + keep_mask[bs] / keep_prob * branch, T.bf16)


KERNEL = layerscale_drop_path
CONSTEXPRS = {}


def inputs(shape, rng):
    B, N, C = shape["B"], shape["N"], shape["C"]
    keep_prob = 0.9
    return dict(x=rng.standard_normal((B, N, C), dtype=np.float32),
                y=rng.standard_normal((B, N, C), dtype=np.float32),
                gamma=(rng.standard_normal(C) * 0.1).astype(np.float32),
                keep_mask=(rng.random(B) < keep_prob).astype(np.float32), keep_prob=keep_prob)


def reference(x, y, gamma, keep_mask, keep_prob):
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    s = keep_mask.astype(np.float64) / np.float64(np.float32(keep_prob))
    return dict(out=x + s[:, None, None] * (gamma.astype(np.float64) * y))


def peer(x, y, gamma, keep_mask, keep_prob):
    return dict(out=(x.float() + (keep_mask / keep_prob)[:, None, None] * (gamma * y.float())).to(x.dtype))


TEST_SHAPES = [dict(B=1, N=1, C=1), dict(B=3, N=7, C=131), dict(B=5, N=17, C=67), dict(B=9, N=3, C=1025)]
BENCH_SHAPE = dict(B=64, N=1024, C=1024)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    B, N, C = shape["B"], shape["N"], shape["C"]
    return 4 * B * N * C, 3 * 2 * B * N * C + 4 * (B + C)
