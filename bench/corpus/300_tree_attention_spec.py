"""Tree attention for speculative decoding (EAGLE-2 / Medusa / SpecInfer token trees, as SGLang and vLLM
verify a draft tree in one target-model pass): each sequence b has a cached prefix of P[b] keys (prefix_len
i32 [B]) followed by N tree tokens appended at positions P[b] .. P[b] + N - 1 of k, v bf16 [B, H, S, D]
(S the cache capacity, S >= P[b] + N); tree_mask bool [B, N, N] says which tree tokens each tree token may
see (itself and its ancestors). Tree query i (q bf16 [B, H, N, D]) sees every prefix key j < P[b] and the
tree key P[b] + m where tree_mask[b, i, m]; out[b, h, i] = softmax(scale * q . k over the visible keys) . V,
bf16. B8 H32 N64 (a 64-node tree) S4160 D128 with prefixes up to 4096. Peer: SDPA with the boolean mask
built from prefix_len and tree_mask (FlexAttention's mask_mod reads the same)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def tree_attention(q: T.In[T.bf16, ("B", "H", "N", "D")], k: T.In[T.bf16, ("B", "H", "S", "D")],
                   v: T.In[T.bf16, ("B", "H", "S", "D")], prefix_len: T.In[T.i32, ("B",)],
                   tree_mask: T.In[T.bool_, ("B", "N", "N")], out: T.Out[T.bf16, ("B", "H", "N", "D")],
                   scale: T.f32):
    B, H, N, D = q.shape
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, N)):
        P = T.cast(prefix_len[b], T.index)
        keys = T.domain(0, P + N)
        kp = T.indices(keys)
        in_tree = kp >= P
        vis = (~in_tree) | T.load(tree_mask, (b, i, kp - P), valid=in_tree, fill=False)
        s = T.matvec(T.cast(k[b, h, keys, dims], T.f32), T.cast(q[b, h, i, dims], T.f32)) * scale
        s = T.where(vis, s, -math.inf)
        e = T.exp(s - T.max(s))
        o = T.vecmat(e, T.cast(v[b, h, keys, dims], T.f32)) / T.sum(e)
        out[b, h, i, dims] = T.cast(o, T.bf16)


KERNEL = tree_attention


def _tree(rng, n):
    parent = [-1] + [int(rng.integers(0, i)) for i in range(1, n)]
    m = np.zeros((n, n), bool)
    for i in range(n):
        j = i
        while j >= 0:
            m[i, j] = True
            j = parent[j]
    return m


def inputs(shape, rng):
    B, H, N, S, D = shape["B"], shape["H"], shape["N"], shape["S"], shape["D"]
    P = rng.integers(0, S - N + 1, size=B)
    if B > 1:
        P[0] = 0                                   # no prefix: the tree alone
    return dict(q=rng.standard_normal((B, H, N, D)).astype(np.float32),
                k=rng.standard_normal((B, H, S, D)).astype(np.float32),
                v=rng.standard_normal((B, H, S, D)).astype(np.float32),
                prefix_len=P.astype(np.int32), tree_mask=np.stack([_tree(rng, N) for _ in range(B)]).reshape(B, N, N),
                scale=1.0 / math.sqrt(D))


def _mask(prefix_len, tree_mask, S):
    B, N, _ = tree_mask.shape
    m = np.zeros((B, N, S), bool)
    for b in range(B):
        P = int(prefix_len[b])
        m[b, :, :P] = True
        m[b, :, P:P + N] = tree_mask[b]
    return m


def reference(q, k, v, prefix_len, tree_mask, scale):
    S = k.shape[2]
    m = _mask(prefix_len, tree_mask, S)[:, None]                            # [B, 1, N, S]
    s = scale * np.einsum("bhnd,bhsd->bhns", q.astype(np.float64), k.astype(np.float64))
    s = np.where(m, s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return dict(out=np.einsum("bhns,bhsd->bhnd", e, v.astype(np.float64)) / e.sum(axis=-1)[..., None])


def peer(q, k, v, prefix_len, tree_mask, scale):
    import torch
    B, N, _ = tree_mask.shape
    S = k.shape[2]
    j = torch.arange(S, device=q.device)[None, None, :]
    P = prefix_len.long()[:, None, None]
    rel = (j - P).clamp(0, N - 1).expand(B, N, S)
    tree = torch.gather(tree_mask, 2, rel) & (j >= P) & (j < P + N)
    m = (j < P) | tree
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m[:, None], scale=scale)
    return dict(out=o)


def OPS(shape):
    B, H, N, S, D = shape["B"], shape["H"], shape["N"], shape["S"], shape["D"]
    return 4 * B * H * N * S * D, 2 * 2 * B * H * S * D + 4 * B * H * N * D


TEST_SHAPES = [dict(B=1, H=1, N=1, S=1, D=1), dict(B=1, H=1, N=2, S=5, D=16), dict(B=2, H=2, N=5, S=23, D=16)]
BENCH_SHAPE = dict(B=8, H=32, N=64, S=4160, D=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "SDPA"
