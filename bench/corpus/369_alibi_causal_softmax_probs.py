"""ALiBi attention probabilities, materialized (no P @ V: the weights are the output, as for attention
visualization or a separate P @ V): per (b, h, i), scores s[j] = scale * <q[b, h, i], k[b, h, j]> +
slopes[h] * (j - i) for the causal keys j <= i, -inf above the diagonal; p[b, h, i, :] = softmax(s), in f32,
stored f16. q, k f16 [B, H, S, D], slopes f32 [H] (the ALiBi geometric slopes), scale a runtime scalar
(1/sqrt(D)). B8 H16 S1024 D64. Peer: torch.compile of (q @ k^T).float() * scale + the ALiBi bias,
masked_fill above the diagonal, softmax, .half()."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def alibi_causal_probs(q: T.In[T.f16, ("B", "H", "S", "D")], k: T.In[T.f16, ("B", "H", "S", "D")],
                       slopes: T.In[T.f32, ("H",)], p: T.Out[T.f16, ("B", "H", "S", "S")], scale: T.f32):
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kpos = T.indices(keys)
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims], acc_dtype=T.f32) * scale
        s = s + slopes[h] * T.cast(kpos - i, T.f32)
        s = T.where(kpos <= i, s, -math.inf)
        e = T.exp(s - T.max(s))
        p[b, h, i, keys] = T.cast(e / T.sum(e), T.f16)


KERNEL = alibi_causal_probs


def _slopes(H):
    return np.array([2.0 ** (-8.0 * (h + 1) / max(H, 1)) for h in range(H)], dtype=np.float32)


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return dict(q=rng.standard_normal((B, H, S, D)).astype(np.float16),
                k=rng.standard_normal((B, H, S, D)).astype(np.float16),
                slopes=_slopes(H), scale=1.0 / math.sqrt(max(D, 1)))


def reference(q, k, slopes, scale):
    S = q.shape[2]
    s = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), k.astype(np.float64)) * scale
    rel = np.arange(S)[None, :] - np.arange(S)[:, None]                     # j - i
    s = s + slopes.astype(np.float64)[None, :, None, None] * rel
    s = np.where(rel <= 0, s, -np.inf)
    if s.size == 0:
        return dict(p=s)
    e = np.exp(s - s.max(axis=3, keepdims=True))
    return dict(p=e / e.sum(axis=3, keepdims=True))


def peer(q, k, slopes, scale):
    import torch
    S = q.shape[2]
    pos = torch.arange(S, device=q.device)
    rel = (pos[None, :] - pos[:, None]).float()
    s = (q @ k.transpose(-1, -2)).float() * scale + slopes[None, :, None, None] * rel
    s = s.masked_fill(rel > 0, float("-inf"))
    return dict(p=torch.softmax(s, dim=-1).to(q.dtype))


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return 2 * B * H * S * S * D + 6 * B * H * S * S, 2 * (2 * B * H * S * D + B * H * S * S)


TEST_SHAPES = [dict(B=0, H=2, S=3, D=5), dict(B=1, H=1, S=1, D=1), dict(B=1, H=3, S=7, D=5),
               dict(B=2, H=2, S=67, D=16), dict(B=1, H=3, S=131, D=33)]
BENCH_SHAPE = dict(B=8, H=16, S=1024, D=64)
TOLERANCE = dict(rtol=1e-2, atol=1e-3)
PEER = "torch.compile"
