"""Causal attention over packed variable-length sequences (flash-attn's varlen layout): q, k, v
[TOTAL, H, D] bf16, sequence boundaries cu_seqlens [NSEQ+1] int32 (sequence s is tokens
cu_seqlens[s]:cu_seqlens[s+1]); a token attends to the tokens of its own sequence at positions <= its
own, scale 1/sqrt(D); o [TOTAL, H, D] bf16. TOTAL=16384 (16 sequences of random lengths) H=16 D=128.
Peer: torch.compile of per-sequence SDPA(is_causal=True) (flash_attn_varlen_func where installed)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def varlen_causal_attention(q: T.In[T.bf16, ("TOTAL", "H", "D")], k: T.In[T.bf16, ("TOTAL", "H", "D")],
                            v: T.In[T.bf16, ("TOTAL", "H", "D")], cu_seqlens: T.In[T.i32, ("NSEQ1",)],
                            o: T.Out[T.bf16, ("TOTAL", "H", "D")], scale: T.f32):
    TOTAL, H, D = q.shape
    toks, dims = T.domain(0, TOTAL), T.domain(0, D)
    bounds = cu_seqlens[T.domain(0, cu_seqlens.shape[0])]
    for t, h in T.parallel(toks, T.domain(0, H)):
        # the start of t's sequence: the largest boundary at or before t
        start = T.max(T.where(bounds <= T.cast(t, T.i32), bounds, 0))
        keys = toks[start:t + 1]                                        # own sequence, causal
        s = T.matvec(k[keys, h, dims], q[t, h, dims]) * scale           # f32 over keys
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, T.bf16), v[keys, h, dims])
        o[t, h, dims] = T.cast(acc / T.sum(p), T.bf16)


KERNEL = varlen_causal_attention
CONSTEXPRS = {}


def _seqlens(total, nseq, rng):
    """nseq random lengths summing to total (some may be 0 in small shapes)."""
    if nseq == 1:
        return np.array([total])
    cuts = np.sort(rng.integers(0, total + 1, size=nseq - 1))
    return np.diff(np.concatenate([[0], cuts, [total]]))


def inputs(shape, rng):
    TOTAL, H, D, NSEQ1 = (shape[n] for n in ("TOTAL", "H", "D", "NSEQ1"))
    lens = _seqlens(TOTAL, NSEQ1 - 1, rng)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    return dict(q=rng.standard_normal((TOTAL, H, D)).astype(np.float32),
                k=rng.standard_normal((TOTAL, H, D)).astype(np.float32),
                v=rng.standard_normal((TOTAL, H, D)).astype(np.float32),
                cu_seqlens=cu, scale=1.0 / math.sqrt(D))


def reference(q, k, v, cu_seqlens, scale):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    o = np.zeros_like(q)
    for lo, hi in zip(cu_seqlens[:-1], cu_seqlens[1:]):
        if hi == lo:
            continue
        s = np.einsum("qhd,khd->hqk", q[lo:hi], k[lo:hi]) * scale
        n = hi - lo
        s = np.where(np.tril(np.ones((n, n), bool))[None], s, -np.inf)
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        o[lo:hi] = np.einsum("hqk,khd->qhd", p, v[lo:hi])
    return dict(o=o)


def peer(q, k, v, cu_seqlens, scale):
    import torch
    import torch.nn.functional as F
    o = torch.empty_like(q)
    cu = cu_seqlens.tolist()
    for lo, hi in zip(cu[:-1], cu[1:]):
        if hi > lo:
            qs, ks, vs = (x[lo:hi].transpose(0, 1) for x in (q, k, v))      # [H, n, D]
            o[lo:hi] = F.scaled_dot_product_attention(qs, ks, vs, is_causal=True, scale=scale).transpose(0, 1)
    return dict(o=o)


def _shape(TOTAL, NSEQ, H, D):
    return dict(TOTAL=TOTAL, NSEQ1=NSEQ + 1, H=H, D=D)


TEST_SHAPES = [_shape(1, 1, 1, 16), _shape(23, 3, 2, 32), _shape(97, 5, 3, 24), _shape(67, 2, 1, 128)]
BENCH_SHAPE = _shape(16384, 16, 16, 128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    # about half of the (sum of n_s^2 / 2) score matrix; with 16 random lengths sum n_s^2 ~ TOTAL^2 / 9
    TOTAL, H, D = shape["TOTAL"], shape["H"], shape["D"]
    pairs = TOTAL * TOTAL / 9 / 2
    return int(4 * H * D * pairs), 2 * 4 * TOTAL * H * D
