"""QKV projection written straight into head-major layout: x [B, S, E] bf16 (the [B*S, E] token rows),
W [3*H*Dh, E] bf16 (viewed as [3, H, Dh, E], the same memory), y = x @ W^T; the columns of y split as
[3, H, Dh] give q, k, v [B, H, S, Dh] bf16 (three outputs, no separate transpose).
B=4 S=2048 E=4096 H=32 Dh=128. Peer: torch.compile (F.linear, view, permute, contiguous)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def qkv_proj_head_major(x: T.In[T.bf16, ("B", "S", "E")], w: T.In[T.bf16, (3, "H", "Dh", "E")],
                        q: T.Out[T.bf16, ("B", "H", "S", "Dh")],
                        k: T.Out[T.bf16, ("B", "H", "S", "Dh")],
                        v: T.Out[T.bf16, ("B", "H", "S", "Dh")]):
    B, S, E = x.shape
    H, Dh = w.shape[1], w.shape[2]
    bs, ss, ks = T.domain(0, B), T.domain(0, S), T.domain(0, E)
    hs, ds = T.domain(0, H), T.domain(0, Dh)
    for i, out in enumerate((q, k, v)):
        acc = T.contract(x[bs, ss, ks], w[i, hs, ds, ks], reduce=((2, 2),))      # [B, S, H, Dh] f32
        out[bs, hs, ss, ds] = T.cast(T.transpose(acc, [0, 2, 1, 3]), T.bf16)


KERNEL = qkv_proj_head_major
CONSTEXPRS = {}


def inputs(shape, rng):
    B, S, E, H, Dh = (shape[n] for n in ("B", "S", "E", "H", "Dh"))
    return dict(x=rng.standard_normal((B, S, E)).astype(np.float32),
                w=(rng.standard_normal((3, H, Dh, E)) / np.sqrt(E)).astype(np.float32))


def reference(x, w):
    _, H, Dh, E = w.shape
    y = x.astype(np.float64) @ w.astype(np.float64).reshape(3 * H * Dh, E).T          # [B, S, 3HDh]
    y = y.reshape(x.shape[0], x.shape[1], 3, H, Dh).transpose(2, 0, 3, 1, 4)         # [3, B, H, S, Dh]
    return dict(q=y[0], k=y[1], v=y[2])


def peer(x, w):
    import torch
    _, H, Dh, E = w.shape
    y = torch.nn.functional.linear(x, w.reshape(3 * H * Dh, E))
    y = y.view(x.shape[0], x.shape[1], 3, H, Dh).permute(2, 0, 3, 1, 4)
    return dict(q=y[0].contiguous(), k=y[1].contiguous(), v=y[2].contiguous())


TEST_SHAPES = [dict(B=1, S=1, E=1, H=1, Dh=1), dict(B=2, S=5, E=37, H=3, Dh=7),
               dict(B=1, S=19, E=131, H=2, Dh=16), dict(B=3, S=33, E=67, H=5, Dh=24)]
BENCH_SHAPE = dict(B=4, S=2048, E=4096, H=32, Dh=128)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    B, S, E, H, Dh = (shape[n] for n in ("B", "S", "E", "H", "Dh"))
    N = 3 * H * Dh
    return 2 * B * S * E * N, 2 * (B * S * E + N * E + B * S * N)
