"""Rotary position embedding applied to Q and K in one kernel (two inputs, two outputs), interleaved
pairs (GPT-J / Llama's original complex layout: elements 2j and 2j + 1 form pair j), each token's position
read from position ids: for q bf16 [B, S, HQ, D] and k bf16 [B, S, HK, D] (GQA: fewer key heads), pos i32
[B, S], and tables cos, sin f32 [P, D2] (D = 2 * D2), with c = cos[pos[b, t], j], s = sin[pos[b, t], j]:
out[..., 2j] = x[2j] c - x[2j + 1] s, out[..., 2j + 1] = x[2j + 1] c + x[2j] s, in f32, stored bf16 to
q_out, k_out. B4 S4096 HQ32 HK8 D128 P8192. Peer: torch.compile of the same formula on x.view(..., D2, 2)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rope_qk_interleaved(q: T.In[T.bf16, ("B", "S", "HQ", "D")], k: T.In[T.bf16, ("B", "S", "HK", "D")],
                        pos: T.In[T.i32, ("B", "S"), T.Range(0, "P")],
                        cos: T.In[T.f32, ("P", "D2")], sin: T.In[T.f32, ("P", "D2")],
                        q_out: T.Out[T.bf16, ("B", "S", "HQ", "D")], k_out: T.Out[T.bf16, ("B", "S", "HK", "D")]):
    B, S, HQ, D = q.shape
    HK = k.shape[2]
    D2 = cos.shape[1]
    pairs, qheads, kheads = T.domain(0, D2), T.domain(0, HQ), T.domain(0, HK)
    ev = 2 * T.indices(pairs)
    for b, t in T.parallel(T.domain(0, B), T.domain(0, S)):
        p = pos[b, t]
        c, sn = cos[p, pairs], sin[p, pairs]
        q1, q2 = T.cast(q[b, t, qheads, ev], T.f32), T.cast(q[b, t, qheads, ev + 1], T.f32)
        q_out[b, t, qheads, ev] = T.cast(q1 * c - q2 * sn, T.bf16)
        q_out[b, t, qheads, ev + 1] = T.cast(q2 * c + q1 * sn, T.bf16)
        k1, k2 = T.cast(k[b, t, kheads, ev], T.f32), T.cast(k[b, t, kheads, ev + 1], T.f32)
        k_out[b, t, kheads, ev] = T.cast(k1 * c - k2 * sn, T.bf16)
        k_out[b, t, kheads, ev + 1] = T.cast(k2 * c + k1 * sn, T.bf16)


KERNEL = rope_qk_interleaved


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    B, S, HQ, HK, D, D2, P = (shape[s] for s in ("B", "S", "HQ", "HK", "D", "D2", "P"))
    assert D == 2 * D2
    inv = 10000.0 ** (-np.arange(D2) / max(D2, 1))
    ang = np.arange(P)[:, None] * inv[None, :]
    return dict(q=rng.standard_normal((B, S, HQ, D)).astype(np.float32),
                k=rng.standard_normal((B, S, HK, D)).astype(np.float32),
                pos=rng.integers(0, max(P, 1), (B, S)).astype(np.int32),
                cos=np.cos(ang).astype(np.float32), sin=np.sin(ang).astype(np.float32))


def _rope(x, pos, cos, sin):
    c = cos[pos][:, :, None, :].astype(np.float64)
    s = sin[pos][:, :, None, :].astype(np.float64)
    x1, x2 = x[..., 0::2].astype(np.float64), x[..., 1::2].astype(np.float64)
    out = np.empty(x.shape)
    out[..., 0::2] = x1 * c - x2 * s
    out[..., 1::2] = x2 * c + x1 * s
    return _bf16(out.astype(np.float32))


def reference(q, k, pos, cos, sin):
    return dict(q_out=_rope(q, pos, cos, sin), k_out=_rope(k, pos, cos, sin))


def peer(q, k, pos, cos, sin):
    import torch

    def rope(x):
        c = cos[pos.long()][:, :, None, :]
        s = sin[pos.long()][:, :, None, :]
        xp = x.float().unflatten(-1, (-1, 2))
        x1, x2 = xp[..., 0], xp[..., 1]
        return torch.stack((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).flatten(-2).to(x.dtype)
    return dict(q_out=rope(q), k_out=rope(k))


def OPS(shape):
    B, S, HQ, HK, D, D2 = (shape[s] for s in ("B", "S", "HQ", "HK", "D", "D2"))
    return 3 * B * S * (HQ + HK) * D, 4 * B * S * (HQ + HK) * D + 4 * B * S + 8 * B * S * D2


TEST_SHAPES = [dict(B=0, S=3, HQ=2, HK=1, D=4, D2=2, P=5), dict(B=1, S=1, HQ=1, HK=1, D=2, D2=1, P=1),
               dict(B=2, S=7, HQ=3, HK=1, D=6, D2=3, P=11), dict(B=1, S=17, HQ=5, HK=3, D=34, D2=17, P=37),
               dict(B=2, S=13, HQ=4, HK=2, D=130, D2=65, P=131)]
BENCH_SHAPE = dict(B=4, S=4096, HQ=32, HK=8, D=128, D2=64, P=8192)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
