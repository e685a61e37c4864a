"""Top-k sparse attention: each query attends only to the 64 key positions listed for it, idx [B, S, 64] int32 (positions into T); Q [B, H, S, D], K and V [B, T, D] shared by the H heads, bf16; softmax over the 64 selected scores (scale 1/sqrt(D)). B2 H16 S4096 T8192 D128. Peer: torch.compile of gather + softmax + weighted sum."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def topk_sparse_attention(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "T", "D")],
                          v: T.In[T.bf16, ("B", "T", "D")], idx: T.In[T.i32, ("B", "S", 64), T.Range(0, "T")],
                          o: T.Out[T.bf16, ("B", "H", "S", "D")]):
    B, H, S, D = q.shape
    dims, sel = T.domain(0, D), T.domain(0, 64)
    scale = T.rsqrt(T.cast(D, T.f32))
    for b, h, s in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        keys = idx[b, s, sel]
        scores = T.matvec(k[b, keys, dims], q[b, h, s, dims]) * scale
        e = T.exp(scores - T.max(scores))
        o[b, h, s, dims] = T.cast(T.vecmat(e, T.cast(v[b, keys, dims], T.f32)) / T.sum(e), T.bf16)


KERNEL = topk_sparse_attention


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    B, H, S, D, NT = shape["B"], shape["H"], shape["S"], shape["D"], shape["T"]
    return {"q": rng.standard_normal((B, H, S, D)).astype(np.float32),
            "k": rng.standard_normal((B, NT, D)).astype(np.float32),
            "v": rng.standard_normal((B, NT, D)).astype(np.float32),
            "idx": rng.integers(0, NT, (B, S, 64)).astype(np.int32)}


def reference(q, k, v, idx):
    D = q.shape[-1]
    bi = np.arange(q.shape[0])[:, None, None]
    kk, vv = k[bi, idx].astype(np.float64), v[bi, idx].astype(np.float64)    # [B, S, 64, D]
    s = np.einsum("bhsd,bskd->bhsk", q.astype(np.float64), kk) / np.sqrt(np.float32(D))
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return {"o": _bf16(np.einsum("bhsk,bskd->bhsd", p, vv).astype(np.float32))}


def peer(q, k, v, idx):
    import torch
    B, S = idx.shape[:2]
    D = q.shape[-1]
    bi = torch.arange(B, device=q.device)[:, None, None]
    kk, vv = k[bi, idx.long()], v[bi, idx.long()]                             # [B, S, 64, D]
    s = torch.einsum("bhsd,bskd->bhsk", q.float(), kk.float()) * D ** -0.5
    p = torch.softmax(s, dim=-1)
    return {"o": torch.einsum("bhsk,bskd->bhsd", p, vv.float()).to(torch.bfloat16)}


TEST_SHAPES = [dict(B=1, H=1, S=1, T=1, D=1), dict(B=2, H=3, S=5, T=7, D=17), dict(B=1, H=2, S=11, T=97, D=33)]
BENCH_SHAPE = dict(B=2, H=16, S=4096, T=8192, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
