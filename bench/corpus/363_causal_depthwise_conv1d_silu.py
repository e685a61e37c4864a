"""Mamba's causal depthwise conv1d (causal_conv1d_fn with activation="silu"): for x bf16 [B, D, L], a
width-4 filter per channel w bf16 [D, 4] and bias bf16 [D], out[b, d, t] = silu(bias[d] + sum_{k<4}
w[d, k] * x[b, d, t - 3 + k]) with x = 0 before the sequence start (left padding 3), computed in f32 and
rounded once to bf16. B8 D4096 L2048. Peer: torch.compile(F.silu(F.conv1d(x, w[:, None, :], bias,
padding=3, groups=D)[..., :L]))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def causal_conv1d_silu(x: T.In[T.bf16, ("B", "D", "L")], w: T.In[T.bf16, ("D", 4)],
                       bias: T.In[T.bf16, ("D",)], out: T.Out[T.bf16, ("B", "D", "L")]):
    B, D, L = x.shape
    W = w.shape[1]                                   # 4, static
    times = T.domain(0, L)
    for b, d in T.parallel(T.domain(0, B), T.domain(0, D)):
        t = T.indices(times)
        acc = T.zeros(times) + T.cast(bias[d], T.f32)
        for k in range(W):                           # the taps, unrolled at trace time
            src = t - (W - 1 - k)
            xk = T.load(x, (b, d, src), valid=src >= 0, fill=0.0)
            acc = acc + T.cast(w[d, k], T.f32) * T.cast(xk, T.f32)
        out[b, d, times] = T.cast(acc * T.sigmoid(acc), T.bf16)


KERNEL = causal_conv1d_silu


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    B, D, L = shape["B"], shape["D"], shape["L"]
    return dict(x=rng.standard_normal((B, D, L)).astype(np.float32),
                w=(0.5 * rng.standard_normal((D, 4))).astype(np.float32),
                bias=(0.1 * rng.standard_normal(D)).astype(np.float32))


def reference(x, w, bias):
    B, D, L = x.shape
    xp = np.concatenate([np.zeros((B, D, 3)), x.astype(np.float64)], axis=2)
    acc = np.broadcast_to(bias.astype(np.float64)[None, :, None], (B, D, L)).copy()
    for k in range(4):
        acc += w[None, :, k, None].astype(np.float64) * xp[:, :, k:k + L]
    y = acc / (1.0 + np.exp(-acc))
    return dict(out=_bf16(y.astype(np.float32)))


def peer(x, w, bias):
    import torch.nn.functional as F
    L = x.shape[-1]
    y = F.conv1d(x, w[:, None, :], bias, padding=w.shape[1] - 1, groups=x.shape[1])[..., :L]
    return dict(out=F.silu(y))


def OPS(shape):
    B, D, L = shape["B"], shape["D"], shape["L"]
    return 12 * B * D * L, 4 * B * D * L + 10 * D


TEST_SHAPES = [dict(B=0, D=3, L=5), dict(B=1, D=1, L=1), dict(B=2, D=3, L=2), dict(B=2, D=5, L=131),
               dict(B=3, D=7, L=1031)]
BENCH_SHAPE = dict(B=8, D=4096, L=2048)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
