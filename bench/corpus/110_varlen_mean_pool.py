"""Mean pooling over each sequence of a packed variable-length batch: x [total, D] bf16, cu_seqlens int32
[B + 1] (offsets, cu_seqlens[0] = 0, non-decreasing; an empty sequence gives zeros), out f32 [B, D]:
out[b, :] = mean of x[cu_seqlens[b]:cu_seqlens[b + 1], :] (f32 accumulation).
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def varlen_mean_pool(x: T.In[T.bf16, ("TOTAL", "D")], cu_seqlens: T.In[T.i32, ("B1",)],
                     out: T.Out[T.f32, ("B", "D")]):
    total, D = x.shape
    B = out.shape[0]                            # B1 = B + 1 (not declarable)
    toks, dims = T.domain(0, total), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        lo, hi = cu_seqlens[b], cu_seqlens[b + 1]
        seq = toks[lo:hi]
        s = T.sum(T.cast(x[seq, dims], T.f32), axis=0)
        n = T.cast(hi - lo, T.f32)
        out[b, dims] = s / T.maximum(n, 1.0)


KERNEL = varlen_mean_pool


def inputs(shape, rng):
    B, D, total = shape["B"], shape["D"], shape["TOTAL"]
    assert shape["B1"] == B + 1
    # B - 1 cut points in [0, total], sorted: random lengths, some of them 0
    cuts = np.sort(rng.integers(0, total + 1, max(B - 1, 0)))
    if B > 2:
        cuts[B // 2] = cuts[B // 2 - 1]                         # at least one empty sequence
    cu = np.concatenate([[0], cuts, [total]]).astype(np.int32)
    return dict(x=rng.standard_normal((total, D)).astype(np.float32), cu_seqlens=cu)


def reference(x, cu_seqlens):
    B = len(cu_seqlens) - 1
    out = np.zeros((B, x.shape[1]))
    for b in range(B):
        lo, hi = int(cu_seqlens[b]), int(cu_seqlens[b + 1])
        if hi > lo:
            out[b] = x[lo:hi].astype(np.float64).mean(axis=0)
    return {"out": out}


def peer(x, cu_seqlens):
    import torch
    B = cu_seqlens.numel() - 1
    lens = (cu_seqlens[1:] - cu_seqlens[:-1]).long()
    seq_ids = torch.repeat_interleave(torch.arange(B, device=x.device), lens, output_size=x.shape[0])
    sums = torch.zeros(B, x.shape[1], dtype=torch.float32, device=x.device).index_add_(0, seq_ids, x.float())
    return {"out": sums / lens.clamp_min(1).unsqueeze(1).float()}


TEST_SHAPES = [dict(B=1, B1=2, TOTAL=1, D=1), dict(B=5, B1=6, TOTAL=37, D=7), dict(B=11, B1=12, TOTAL=263, D=129)]
BENCH_SHAPE = dict(B=256, B1=257, TOTAL=1 << 20, D=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"


def OPS(shape):
    B, D, total = shape["B"], shape["D"], shape["TOTAL"]
    return total * D, total * D * 2 + B * D * 4 + (B + 1) * 4
