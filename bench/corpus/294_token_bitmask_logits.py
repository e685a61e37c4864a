"""Grammar-constrained decoding: apply a token bitmask to next-token logits in place (xgrammar's
apply_token_bitmask_inplace, as vLLM and SGLang call it for JSON-schema / regex constrained outputs):
bitmask i32 [B, NW] holds one bit per vocabulary id, id v at bit v % 32 of word v // 32 (NW = ceil(V / 32)),
and logits[b, v] (f32 [B, V]) becomes -inf where that bit is 0; allowed ids keep their logit. B256
V128256 (NW 4008). Peer: xgrammar's torch reference (unpack the bits, masked_fill_) under torch.compile."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def token_bitmask(logits: T.InOut[T.f32, ("B", "V")], bitmask: T.In[T.i32, ("B", "NW")]):
    B, V = logits.shape
    vocab = T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        v = T.indices(vocab)
        word = bitmask[b, v // 32]
        allowed = ((word >> T.cast(v % 32, T.i32)) & 1) != 0
        logits[b, vocab] = T.where(allowed, logits[b, vocab], -math.inf)


KERNEL = token_bitmask


def inputs(shape, rng):
    B, V, NW = shape["B"], shape["V"], shape["NW"]
    assert NW == (V + 31) // 32
    bits = rng.random((B, NW * 32)) < 0.3
    if B > 1:
        bits[1] = True                           # everything allowed (every word -1: bit 31 set)
    words = np.packbits(bits.reshape(B, NW, 32)[:, :, ::-1], axis=2, bitorder="big").view(">u4")[..., 0]
    return dict(logits=rng.standard_normal((B, V)).astype(np.float32),
                bitmask=words.astype(np.uint32).view(np.int32))


def reference(logits, bitmask):
    B, V = logits.shape
    v = np.arange(V)
    bit = (bitmask.view(np.uint32)[:, v // 32] >> (v % 32).astype(np.uint32)) & 1
    return dict(logits=np.where(bit != 0, logits, -np.inf).astype(np.float32))


def peer(logits, bitmask):
    import torch
    V = logits.shape[1]
    v = torch.arange(V, device=logits.device)
    bit = (bitmask[:, v // 32] >> (v % 32).to(torch.int32)) & 1
    return dict(logits=logits.masked_fill_(bit == 0, -float("inf")))


def OPS(shape):
    n = shape["B"] * shape["V"]
    return 3 * n, 8 * n + shape["B"] * shape["NW"] * 4


TEST_SHAPES = [dict(B=1, V=1, NW=1), dict(B=3, V=37, NW=2), dict(B=5, V=1031, NW=33)]
BENCH_SHAPE = dict(B=256, V=128256, NW=4008)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch.compile"
