"""Per-sample gradient norms of a linear layer for DP-SGD by "ghost clipping" (Opacus / fastDP's
ghost norm for sequence inputs): for sample b with activations A_b [T, DI] and output gradients G_b
[T, DO] (bf16), the weight gradient A_b^T G_b is never formed; its squared Frobenius norm is
sq[b] = sum over t, u of (A_b A_b^T)[t, u] * (G_b G_b^T)[t, u] (f32 products), and the clipping
factor is clip[b] = min(1, max_norm / (sqrt(sq[b]) + 1e-6)); both f32 [B]. B=32 T=512 DI=1024
DO=4096. Peer: torch.compile of the two bmm Gram matrices and their inner product."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def ghost_clip_norms(a: T.In[T.bf16, ("B", "T", "DI")], g: T.In[T.bf16, ("B", "T", "DO")],
                     sq: T.Out[T.f32, ("B",)], clip: T.Out[T.f32, ("B",)], max_norm: T.f32):
    B, NT, DI = a.shape
    DO = g.shape[2]
    ts, ins, outs = T.domain(0, NT), T.domain(0, DI), T.domain(0, DO)
    for b in T.parallel(T.domain(0, B)):
        ga = T.matmul(a[b, ts, ins], a[b, ts, ins], transpose_rhs=True)     # [T, T] f32
        gg = T.matmul(g[b, ts, outs], g[b, ts, outs], transpose_rhs=True)   # [T, T] f32
        n2 = T.sum(ga * gg)
        sq[b] = n2
        clip[b] = T.minimum(max_norm / (T.sqrt(n2) + 1e-6), 1.0)


KERNEL = ghost_clip_norms


def inputs(shape, rng):
    B, NT, DI, DO = shape["B"], shape["T"], shape["DI"], shape["DO"]
    return dict(a=rng.standard_normal((B, NT, DI)).astype(np.float32),
                g=(0.01 * rng.standard_normal((B, NT, DO))).astype(np.float32), max_norm=1.0)


def reference(a, g, max_norm):
    a, g = a.astype(np.float64), g.astype(np.float64)
    w = np.einsum("bti,bto->bio", a, g)
    n2 = (w * w).sum(axis=(1, 2))
    return dict(sq=n2, clip=np.minimum(np.float32(max_norm) / (np.sqrt(n2) + 1e-6), 1.0))


def peer(a, g, max_norm):
    import torch
    ga = torch.bmm(a, a.transpose(1, 2)).float()
    gg = torch.bmm(g, g.transpose(1, 2)).float()
    n2 = (ga * gg).sum(dim=(1, 2))
    return dict(sq=n2, clip=(max_norm / (n2.sqrt() + 1e-6)).clamp(max=1.0))


def OPS(shape):
    B, NT, DI, DO = shape["B"], shape["T"], shape["DI"], shape["DO"]
    return 2 * B * NT * NT * (DI + DO), 2 * B * NT * (DI + DO)


TEST_SHAPES = [dict(B=1, T=1, DI=1, DO=1), dict(B=2, T=3, DI=7, DO=5), dict(B=3, T=17, DI=33, DO=20)]
BENCH_SHAPE = dict(B=32, T=512, DI=1024, DO=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "torch.compile"
