"""FlashAttention-2 backward, the dQ half (causal): given Q, K, V, dO [B, H, S, D] (bf16), the
forward's log-sum-exp lse [B, H, S] and delta = rowsum(dO * O) [B, H, S] (f32, from the backward's
preprocessing step), for query i: p_j = exp(scale * <q_i, k_j> - lse_i) for keys j <= i (0 after
i), dp_j = <do_i, v_j>, ds_j = p_j * (dp_j - delta_i) rounded to bf16 (as FA2 feeds the tensor cores),
and dq_i = scale * sum_j ds_j k_j (f32 accumulation), stored bf16. B4 H32 S4096 D128. Peer: the dQ of
SDPA's flash backward (torch autograd through F.scaled_dot_product_attention, is_causal)."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def attention_backward_dq(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "H", "S", "D")],
                          v: T.In[T.bf16, ("B", "H", "S", "D")], do: T.In[T.bf16, ("B", "H", "S", "D")],
                          lse: T.In[T.f32, ("B", "H", "S")], delta: T.In[T.f32, ("B", "H", "S")],
                          dq: T.Out[T.bf16, ("B", "H", "S", "D")], scale: T.f32):
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        p = T.where(kpos <= i, T.exp(s - lse[b, h, i]), 0.0)
        dp = T.matvec(v[b, h, keys, dims], do[b, h, i, dims])
        ds = T.cast(p * (dp - delta[b, h, i]), T.bf16)
        dq[b, h, i, dims] = T.cast(T.vecmat(ds, k[b, h, keys, dims]) * scale, T.bf16)


KERNEL = attention_backward_dq


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def _forward(q, k, v, do, scale):
    s = np.einsum("bhid,bhjd->bhij", q, k) * scale
    S = q.shape[2]
    s = np.where(np.tril(np.ones((S, S), dtype=bool)), s, -np.inf)
    mx = s.max(axis=-1, keepdims=True)
    lse = mx[..., 0] + np.log(np.exp(s - mx).sum(axis=-1))
    o = np.einsum("bhij,bhjd->bhid", np.exp(s - lse[..., None]), v)
    return lse, (do * o).sum(axis=-1)


def inputs(shape, rng):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    q, k, v, do = (_bf16(rng.standard_normal((B, H, S, D))).astype(np.float64) for _ in range(4))
    scale = 1.0 / math.sqrt(D)
    lse, delta = _forward(q, k, v, do, scale)
    return dict(q=q.astype(np.float32), k=k.astype(np.float32), v=v.astype(np.float32),
                do=do.astype(np.float32), lse=lse.astype(np.float32), delta=delta.astype(np.float32),
                scale=scale)


def reference(q, k, v, do, lse, delta, scale):
    q, k, v, do = (a.astype(np.float64) for a in (q, k, v, do))
    S = q.shape[2]
    s = np.einsum("bhid,bhjd->bhij", q, k) * np.float32(scale)
    p = np.where(np.tril(np.ones((S, S), dtype=bool)), np.exp(s - lse[..., None]), 0.0)
    dp = np.einsum("bhid,bhjd->bhij", do, v)
    ds = p * (dp - delta[..., None])
    return dict(dq=np.einsum("bhij,bhjd->bhid", ds, k) * np.float32(scale))


def peer(q, k, v, do, lse, delta, scale):
    import torch
    import torch.nn.functional as F
    qg = q.detach().requires_grad_(True)
    o = F.scaled_dot_product_attention(qg, k, v, is_causal=True, scale=scale)
    (dq,) = torch.autograd.grad(o, (qg,), do)
    return dict(dq=dq)


def OPS(shape):
    B, H, S, D = shape["B"], shape["H"], shape["S"], shape["D"]
    return 3 * 2 * B * H * S * S * D // 2, 2 * 5 * B * H * S * D


TEST_SHAPES = [dict(B=1, H=1, S=1, D=16), dict(B=1, H=2, S=7, D=16), dict(B=1, H=1, S=13, D=32)]
BENCH_SHAPE = dict(B=4, H=32, S=4096, D=128)
TOLERANCE = dict(rtol=3e-2, atol=3e-2)
BENCH_TOLERANCE = dict(rtol=5e-2, atol=5e-2)
PEER = "torch SDPA flash backward"
