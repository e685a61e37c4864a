"""1-D neighborhood attention (NATTEN's na1d, kernel size 7, dilation 1) with relative positional bias:
query i of a sequence of length L >= 7 attends to the 7 keys starting at clamp(i - 3, 0, L - 7) (the
window slides inward at the ends, it is never cut), scores scale * q_i . k_j + rpb[h, j - i + 6] (rpb
f32 [H, 13]), softmax over the window, weighted sum of v. q, k, v, out f16 [B, H, L, D]. B8 H16 L8192
D64. Peer: torch (natten's reference: unfold the windows, eager)."""
import math
import numpy as np
import tessel
import tessel.language as T

KS = 7


@tessel.kernel
def neighborhood_attention_1d(q: T.In[T.f16, ("B", "H", "L", "D")], k: T.In[T.f16, ("B", "H", "L", "D")],
                              v: T.In[T.f16, ("B", "H", "L", "D")], rpb: T.In[T.f32, ("H", 2 * KS - 1)],
                              out: T.Out[T.f16, ("B", "H", "L", "D")]):
    B, H, L, D = q.shape
    keys, dims = T.domain(0, L), T.domain(0, D)
    scale = T.rsqrt(T.cast(D, T.f32))
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, L)):
        start = T.minimum(T.maximum(i - KS // 2, 0), L - KS)
        win = keys[start:start + KS]
        s = T.matvec(T.cast(k[b, h, win, dims], T.f32), T.cast(q[b, h, i, dims], T.f32)) * scale
        s = s + rpb[h, T.indices(win) - i + (KS - 1)]
        e = T.exp(s - T.max(s))
        o = T.vecmat(e, T.cast(v[b, h, win, dims], T.f32)) / T.sum(e)
        out[b, h, i, dims] = T.cast(o, T.f16)


KERNEL = neighborhood_attention_1d


def inputs(shape, rng):
    B, H, L, D = shape["B"], shape["H"], shape["L"], shape["D"]
    f = lambda *s: rng.standard_normal(s).astype(np.float16)
    return dict(q=f(B, H, L, D), k=f(B, H, L, D), v=f(B, H, L, D),
                rpb=rng.standard_normal((H, 2 * KS - 1)).astype(np.float32))


def reference(q, k, v, rpb):
    B, H, L, D = q.shape
    out = np.zeros((B, H, L, D))
    qf, kf, vf = (a.astype(np.float64) for a in (q, k, v))
    for i in range(L):
        st = min(max(i - KS // 2, 0), L - KS)
        s = np.einsum("bhd,bhjd->bhj", qf[:, :, i], kf[:, :, st:st + KS]) / math.sqrt(D)
        s = s + rpb[None, :, np.arange(st, st + KS) - i + KS - 1]
        e = np.exp(s - s.max(-1, keepdims=True))
        out[:, :, i] = np.einsum("bhj,bhjd->bhd", e / e.sum(-1, keepdims=True), vf[:, :, st:st + KS])
    return dict(out=out)


def peer(q, k, v, rpb):
    import torch
    B, H, L, D = q.shape
    i = torch.arange(L, device=q.device)
    st = (i - KS // 2).clamp(0, L - KS)
    j = st[:, None] + torch.arange(KS, device=q.device)                  # [L, KS] window keys
    kw, vw = k[:, :, j].float(), v[:, :, j].float()                        # [B, H, L, KS, D]
    s = torch.einsum("bhid,bhijd->bhij", q.float(), kw) / math.sqrt(D) + rpb[:, j - i[:, None] + KS - 1][None]
    return dict(out=torch.einsum("bhij,bhijd->bhid", s.softmax(-1), vw).half())


def OPS(shape):
    B, H, L, D = shape["B"], shape["H"], shape["L"], shape["D"]
    return 4 * B * H * L * KS * D, 8 * B * H * L * D


TEST_SHAPES = [dict(B=1, H=1, L=7, D=1), dict(B=1, H=2, L=11, D=3), dict(B=1, H=2, L=31, D=16)]
BENCH_SHAPE = dict(B=8, H=16, L=8192, D=64)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch"
