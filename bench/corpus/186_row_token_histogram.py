"""Per-row token histogram: tokens [B, L] int32 with values in [0, 256); out [B, 256] int32 holds each
row's count of every value. B=4096 L=8192. Peer: torch.compile (scatter_add_ of ones into [B, 256])."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def row_token_histogram(tokens: T.In[T.i32, ("B", "L"), T.Range(0, 256)],
                        out: T.Out[T.i32, ("B", 256)]):
    B, L = tokens.shape
    cols, bins = T.domain(0, L), out.domain(1)
    for r in T.parallel(T.domain(0, B)):
        out[r, bins] = T.histogram(tokens[r, cols], bins, dtype=T.i32)


KERNEL = row_token_histogram
CONSTEXPRS = {}


def inputs(shape, rng):
    B, L = shape["B"], shape["L"]
    # skewed, as token ids are: low values far more frequent
    return dict(tokens=np.minimum(rng.geometric(0.02, size=(B, L)) - 1, 255).astype(np.int32))


def reference(tokens):
    B = tokens.shape[0]
    out = np.zeros((B, 256), np.int64)
    for r in range(B):
        out[r] = np.bincount(tokens[r], minlength=256)
    return dict(out=out.astype(np.int32))


def peer(tokens):
    import torch
    out = torch.zeros((tokens.shape[0], 256), dtype=torch.int32, device=tokens.device)
    return dict(out=out.scatter_add_(1, tokens.long(), torch.ones_like(tokens)))


TEST_SHAPES = [dict(B=1, L=1), dict(B=3, L=127), dict(B=17, L=1031), dict(B=5, L=4099)]
BENCH_SHAPE = dict(B=4096, L=8192)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"


def OPS(shape):
    B, L = shape["B"], shape["L"]
    return B * L, 4 * B * L + 4 * B * 256
