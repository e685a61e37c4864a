"""Attention decode with a single query per sequence over a ragged KV cache: q bf16 [B, H, D], K and V bf16 [total_tokens, H, D] packed with cu_seqlens int32 [B+1], out bf16 [B, H, D]. B64 H32 D128, lengths random in [1, 4096]. Peer: a loop-free torch reference via padding + SDPA (document it)."""
import numpy as np
import torch
import torch.nn.functional as Fn
import tessel
import tessel.language as T


@tessel.kernel
def ragged_decode_attention(q: T.In[T.bf16, ("B", "H", "D")], k: T.In[T.bf16, ("TT", "H", "D")],
                            v: T.In[T.bf16, ("TT", "H", "D")], cu_seqlens: T.In[T.i32, ("B1",)],
                            out: T.Out[T.bf16, ("B", "H", "D")], scale: T.f32):
    B, H, D = q.shape
    toks, dims = T.domain(0, k.shape[0]), T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        keys = toks[cu_seqlens[b]:cu_seqlens[b + 1]]
        s = T.matvec(k[keys, h, dims], q[b, h, dims]) * scale          # f32 scores
        e = T.exp(s - T.max(s))
        o = T.vecmat(e, T.cast(v[keys, h, dims], T.f32)) / T.sum(e)
        out[b, h, dims] = T.cast(o, T.bf16)


KERNEL = ragged_decode_attention


def _lengths(B, TT, rng):
    """B positive lengths summing to TT (cut points drawn without replacement). TT is a shape symbol, so the
    total is fixed by the shape: at the bench shape (TT 131072 = 64 * 2048) the lengths are random with mean
    2048, which the brief's "random in [1, 4096]" has too, though a length may pass 4096 here."""
    cuts = np.sort(rng.choice(np.arange(1, TT), B - 1, replace=False)) if B > 1 else np.array([], dtype=np.int64)
    return np.diff(np.concatenate([[0], cuts, [TT]]))


def inputs(shape, rng):
    B, H, D, TT = shape["B"], shape["H"], shape["D"], shape["TT"]
    assert shape["B1"] == B + 1 and TT >= B
    lens = _lengths(B, TT, rng)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    return dict(q=rng.standard_normal((B, H, D)).astype(np.float32),
                k=rng.standard_normal((TT, H, D)).astype(np.float32),
                v=rng.standard_normal((TT, H, D)).astype(np.float32),
                cu_seqlens=cu, scale=float(1.0 / np.sqrt(D)))


def reference(q, k, v, cu_seqlens, scale):
    B, H, D = q.shape
    out = np.empty((B, H, D))
    for b in range(B):
        ks = k[cu_seqlens[b]:cu_seqlens[b + 1]].astype(np.float64)      # [L, H, D]
        vs = v[cu_seqlens[b]:cu_seqlens[b + 1]].astype(np.float64)
        s = np.einsum("lhd,hd->hl", ks, q[b].astype(np.float64)) * np.float32(scale)
        p = np.exp(s - s.max(1, keepdims=True))
        out[b] = np.einsum("hl,lhd->hd", p, vs) / p.sum(1, keepdims=True)
    return dict(out=out.astype(np.float32))


def peer(q, k, v, cu_seqlens, scale):
    """Loop-free: pad every sequence to the longest (positions cu[b] + t, clamped, gathered from the packed
    K and V), mask the padding, and run one SDPA over [B, H, 1, Lmax] (.item() reads the longest length)."""
    cu = cu_seqlens.long()
    lens = cu[1:] - cu[:-1]
    lmax = int(lens.max().item())
    t = torch.arange(lmax, device=q.device)
    pos = (cu[:-1, None] + t).clamp_max(k.shape[0] - 1)                 # [B, Lmax]
    valid = t[None, :] < lens[:, None]
    kp = k[pos].permute(0, 2, 1, 3)                                     # [B, H, Lmax, D]
    vp = v[pos].permute(0, 2, 1, 3)
    o = Fn.scaled_dot_product_attention(q[:, :, None, :], kp, vp, attn_mask=valid[:, None, None, :], scale=scale)
    return dict(out=o[:, :, 0, :])


TEST_SHAPES = [dict(B=1, H=1, D=1, TT=1, B1=2), dict(B=3, H=2, D=7, TT=37, B1=4), dict(B=5, H=3, D=32, TT=211, B1=6)]
BENCH_SHAPE = dict(B=64, H=32, D=128, TT=131072, B1=65)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "padding + SDPA (loop-free torch)"
