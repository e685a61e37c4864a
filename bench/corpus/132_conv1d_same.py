"""1-D convolution over a sequence, kernel 3, padding 1 ("same"), channels-last: out[b, t, o] = bias[o] + sum over k<3, c of x[b, t+k-1, c] * w[k, c, o] (zero outside [0, T)); x bf16 [B, T, C], w bf16 [3, C, O]. B8 T4096 C512 O512. Peer: torch.compile(F.conv1d) with the layout transposes."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def conv1d_same(x: T.In[T.bf16, ("B", "T", "C")], w: T.In[T.bf16, (3, "C", "O")], bias: T.In[T.f32, ("O",)],
                out: T.Out[T.bf16, ("B", "T", "O")]):
    B, L, C = x.shape
    O = w.shape[2]
    ts, cs, os = T.domain(0, L), T.domain(0, C), T.domain(0, O)
    t = T.indices(ts)
    for b in T.parallel(T.domain(0, B)):
        acc = bias[os]
        for k in range(3):
            src = t + (k - 1)
            xs = T.load(x, (b, src, cs), valid=(src >= 0) & (src < L), fill=0.0)
            acc = acc + T.matmul(xs, w[k, cs, os], acc_dtype=T.f32)
        out[b, ts, os] = T.cast(acc, T.bf16)


KERNEL = conv1d_same


def inputs(shape, rng):
    B, L, C, O = shape["B"], shape["T"], shape["C"], shape["O"]
    return {"x": rng.standard_normal((B, L, C)).astype(np.float32),
            "w": (rng.standard_normal((3, C, O)) / np.sqrt(3 * C)).astype(np.float32),
            "bias": rng.standard_normal(O).astype(np.float32)}


def reference(x, w, bias):
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    xp = np.pad(x64, ((0, 0), (1, 1), (0, 0)))
    L = x.shape[1]
    out = bias.astype(np.float64) + sum(np.einsum("btc,co->bto", xp[:, k:k + L], w64[k]) for k in range(3))
    return {"out": out}


def peer(x, w, bias):
    import torch.nn.functional as F
    y = F.conv1d(x.transpose(1, 2), w.permute(2, 1, 0), bias.to(x.dtype), padding=1)
    return {"out": y.transpose(1, 2).contiguous()}


TEST_SHAPES = [dict(B=1, T=1, C=1, O=1), dict(B=2, T=7, C=5, O=3), dict(B=3, T=67, C=37, O=19)]
BENCH_SHAPE = dict(B=8, T=4096, C=512, O=512)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile(F.conv1d) with transposes"
