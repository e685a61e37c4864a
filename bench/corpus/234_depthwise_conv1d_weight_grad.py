"""Weight gradient of a causal depthwise conv1d (y[b, c, t] = sum_k w[c, k] * x[b, c, t - KW + 1 + k],
zero outside): dw[c, k] = sum over b, t of dy[b, c, t] * x[b, c, t - KW + 1 + k]; x, dy [B, C, L] bf16,
dw [C, KW] f32. B=8 C=2048 L=4096 KW=4. Peer: torch.compile (conv1d's weight gradient through autograd,
or torch.nn.grad.conv1d_weight)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def depthwise_conv1d_weight_grad(x: T.In[T.bf16, ("B", "C", "L")], dy: T.In[T.bf16, ("B", "C", "L")],
                                 dw: T.Out[T.f32, ("C", "KW")]):
    B, C, L = x.shape
    KW = dw.shape[1]
    bs, times = T.domain(0, B), T.domain(0, L)
    for c, k in T.parallel(T.domain(0, C), T.domain(0, KW)):
        shift = KW - 1 - k                          # output t reads input t - shift
        outs = times[shift:L]                       # outputs whose input is inside the sequence
        ins = times[0:L - shift]
        prod = T.cast(dy[bs, c, outs], T.f32) * T.cast(x[bs, c, ins], T.f32)
        dw[c, k] = T.sum(prod)


KERNEL = depthwise_conv1d_weight_grad
CONSTEXPRS = {}


def inputs(shape, rng):
    B, C, L = shape["B"], shape["C"], shape["L"]
    return dict(x=rng.standard_normal((B, C, L), dtype=np.float32),
                dy=rng.standard_normal((B, C, L), dtype=np.float32))


def reference(x, dy):
    x, dy = np.asarray(x, np.float64), np.asarray(dy, np.float64)
    KW = _KW
    L = x.shape[2]
    dw = np.zeros((x.shape[1], KW))
    for k in range(KW):
        s = KW - 1 - k
        if s < L:
            dw[:, k] = np.einsum("bct,bct->c", dy[:, :, s:], x[:, :, :L - s])
    return dict(dw=dw)


def peer(x, dy):
    import torch
    C = x.shape[1]
    w = torch.empty((C, 1, _KW), dtype=x.dtype, device=x.device)
    xp = torch.nn.functional.pad(x, (_KW - 1, 0))
    return dict(dw=torch.nn.grad.conv1d_weight(xp, w.shape, dy, groups=C)[:, 0, :].float())


_KW = 4        # dw's extent: reference() and peer() see only the inputs, and KW is a fixed 4 here
TEST_SHAPES = [dict(B=1, C=1, L=1, KW=4), dict(B=2, C=3, L=3, KW=4), dict(B=3, C=17, L=131, KW=4),
               dict(B=2, C=5, L=1031, KW=4)]
BENCH_SHAPE = dict(B=8, C=2048, L=4096, KW=4)
TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "torch.compile"


def OPS(shape):
    B, C, L, KW = shape["B"], shape["C"], shape["L"], shape["KW"]
    return 2 * B * C * L * KW, 2 * 2 * B * C * L + 4 * C * KW
