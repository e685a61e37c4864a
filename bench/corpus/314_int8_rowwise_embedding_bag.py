"""Embedding bag over an 8-bit row-wise quantized table with per-sample weights (FBGEMM's
embedding_bag_byte_rowwise_offsets, as DLRM / TorchRec inference serves quantized sparse features): each
table row v holds D unsigned bytes q[v, :] (0..255, passed as int8) with its own f32 scale and bias,
scale_bias f32 [V, 2], so the row is q * scale + bias; bag b gathers the rows indices[j] (i64) for j in
offsets[b] .. offsets[b + 1] - 1 (offsets i64 [B + 1], bags may be empty) and out[b, :] = sum over them of
weights[j] * row (weights f32 [NI]), f32 [B, D]. V 4,000,000 D128 B65536, 40 lookups a bag on average.
Peer: torch.ops.quantized.embedding_bag_byte_rowwise_offsets on the packed [V, D + 8] table (the dequantized
F.embedding_bag where that op is absent)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def int8_rowwise_embedding_bag(q: T.In[T.i8, ("V", "D")], scale_bias: T.In[T.f32, ("V", 2)],
                               indices: T.In[T.i64, ("NI",)], offsets: T.In[T.i64, ("B1",)],
                               weights: T.In[T.f32, ("NI",)], out: T.Out[T.f32, ("B", "D")]):
    V, D = q.shape
    NI = indices.shape[0]
    B = out.shape[0]
    dims, items = T.domain(0, D), T.domain(0, NI)
    for b in T.parallel(T.domain(0, B)):
        bag = items[offsets[b]:offsets[b + 1]]
        rows = indices[bag]
        qv = T.cast(T.cast(q[rows, dims], T.i32) & 0xFF, T.f32)
        row = qv * scale_bias[rows, 0] + scale_bias[rows, 1]
        out[b, dims] = T.sum(row * weights[bag], axis=0)


KERNEL = int8_rowwise_embedding_bag


def inputs(shape, rng):
    V, D, NI, B = shape["V"], shape["D"], shape["NI"], shape["B"]
    assert shape["B1"] == B + 1
    cuts = np.sort(rng.integers(0, NI + 1, max(B - 1, 0)))
    offsets = np.concatenate([[0], cuts, [NI]]).astype(np.int64)
    u8 = rng.integers(0, 256, (V, D))
    sb = np.stack([rng.random(V) * 0.02 + 1e-3, rng.standard_normal(V) * 0.5], axis=1)
    return dict(q=u8.astype(np.uint8).view(np.int8), scale_bias=sb.astype(np.float32),
                indices=rng.integers(0, V, NI).astype(np.int64), offsets=offsets,
                weights=rng.random(NI).astype(np.float32))


def reference(q, scale_bias, indices, offsets, weights):
    rows = q.view(np.uint8).astype(np.float64) * scale_bias[:, :1] + scale_bias[:, 1:]
    B = len(offsets) - 1
    out = np.zeros((B, q.shape[1]))
    for b in range(B):
        j = slice(offsets[b], offsets[b + 1])
        out[b] = (rows[indices[j]] * weights[j, None]).sum(0)
    return dict(out=out)


def peer(q, scale_bias, indices, offsets, weights):
    import torch
    import torch.nn.functional as F
    u8 = q.view(torch.uint8)
    try:
        packed = torch.cat([u8, scale_bias.contiguous().view(torch.uint8)], dim=1)
        o = torch.ops.quantized.embedding_bag_byte_rowwise_offsets(
            packed, indices, offsets, mode=0, per_sample_weights=weights, include_last_offset=True)
    except (RuntimeError, AttributeError, NotImplementedError):
        table = u8.float() * scale_bias[:, :1] + scale_bias[:, 1:]
        o = F.embedding_bag(indices, table, offsets, mode="sum", per_sample_weights=weights,
                            include_last_offset=True)
    return dict(out=o)


def OPS(shape):
    NI, D, B = shape["NI"], shape["D"], shape["B"]
    return 3 * NI * D, NI * (D + 8 + 16) + B * (8 + 4 * D)


TEST_SHAPES = [dict(V=1, D=1, NI=1, B=1, B1=2), dict(V=11, D=7, NI=37, B=5, B1=6),
               dict(V=97, D=33, NI=263, B=13, B1=14)]
BENCH_SHAPE = dict(V=4_000_000, D=128, NI=65536 * 40, B=65536, B1=65537)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch"
