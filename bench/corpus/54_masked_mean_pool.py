"""Masked mean pooling (sentence embeddings): out[b, :] = sum_t mask[b, t] * h[b, t, :] /
max(sum_t mask[b, t], 1), h [B, T, D] bf16, mask [B, T] int32 (0/1), out [B, D] f32. Rows whose mask
is all zero give zeros. B64 T512 D1024. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def masked_mean_pool(h: T.In[T.bf16, ("B", "T", "D")], mask: T.In[T.i32, ("B", "T"), T.Range(0, 2)],
                     out: T.Out[T.f32, ("B", "D")]):
    B, S, D = h.shape
    toks, dims = T.domain(0, S), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        m = T.cast(mask[b, toks], T.f32)                          # [T]
        total = T.sum(m * T.cast(h[b, toks, dims], T.f32), axis=0)  # [D]
        out[b, dims] = total / T.maximum(T.sum(m), 1.0)


KERNEL = masked_mean_pool
CONSTEXPRS = {}


def inputs(shape, rng):
    B, S, D = shape["B"], shape["T"], shape["D"]
    # padded sequences: row b keeps a random-length prefix; every third row (b % 3 == 1) is all padding
    lens = rng.integers(1, S + 1, size=B)
    lens[1::3] = 0
    pos = np.arange(S)[None, :]
    keep = (rng.random((B, S)) < 0.9) | (pos == 0)       # a few holes inside the kept prefixes
    mask = ((pos < lens[:, None]) & keep).astype(np.int32)
    return dict(h=rng.standard_normal((B, S, D)).astype(np.float32), mask=mask)


def reference(h, mask):
    m = mask.astype(np.float64)
    total = np.einsum("bt,btd->bd", m, h.astype(np.float64))
    return dict(out=total / np.maximum(m.sum(axis=1), 1.0)[:, None])


def peer(h, mask):
    import torch
    m = mask.to(h.dtype).unsqueeze(-1)
    total = (h * m).float().sum(dim=1)
    return dict(out=total / mask.sum(dim=1, keepdim=True).clamp(min=1).float())


TEST_SHAPES = [dict(B=1, T=1, D=1), dict(B=3, T=7, D=5), dict(B=5, T=37, D=67), dict(B=4, T=131, D=29)]
BENCH_SHAPE = dict(B=64, T=512, D=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    B, S, D = shape["B"], shape["T"], shape["D"]
    return 2 * B * S * D, 2 * B * S * D + 4 * B * S + 4 * B * D
