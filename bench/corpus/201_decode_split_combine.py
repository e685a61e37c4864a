"""Combine split-KV partial attention results (flash-decoding's reduction): o [B, H, P, D] f32 partial outputs
and lse [B, H, P] f32 partial log-sum-exps of P splits; LSE = logsumexp_p(lse_p) and
out[b, h, :] = sum_p exp(lse_p - LSE) * o_p; writes out [B, H, D] f32 and LSE [B, H] f32.
B=32 H=32 P=16 D=128. Peer: torch.compile (torch.logsumexp, softmax weights, weighted sum)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def decode_split_combine(o: T.In[T.f32, ("B", "H", "P", "D")], lse: T.In[T.f32, ("B", "H", "P")],
                         out: T.Out[T.f32, ("B", "H", "D")], lse_out: T.Out[T.f32, ("B", "H")]):
    B, H, P, D = o.shape
    parts, dims = T.domain(0, P), T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        l = lse[b, h, parts]
        mx = T.max(l)
        total = mx + T.log(T.sum(T.exp(l - mx)))
        lse_out[b, h] = total
        wts = T.exp(l - total)
        out[b, h, dims] = T.sum(o[b, h, parts, dims] * wts, axis=0)


KERNEL = decode_split_combine
CONSTEXPRS = {}


def inputs(shape, rng):
    B, H, P, D = (shape[n] for n in ("B", "H", "P", "D"))
    return dict(o=rng.standard_normal((B, H, P, D)).astype(np.float32),
                lse=(5.0 + 3.0 * rng.standard_normal((B, H, P))).astype(np.float32))


def reference(o, lse):
    l = lse.astype(np.float64)
    mx = l.max(axis=2, keepdims=True)
    total = mx + np.log(np.exp(l - mx).sum(axis=2, keepdims=True))
    wts = np.exp(l - total)
    return dict(out=(o.astype(np.float64) * wts[..., None]).sum(axis=2), lse_out=total[..., 0])


def peer(o, lse):
    import torch
    total = torch.logsumexp(lse, dim=2)
    wts = torch.exp(lse - total[..., None])
    return dict(out=(o * wts[..., None]).sum(dim=2), lse_out=total)


TEST_SHAPES = [dict(B=1, H=1, P=1, D=1), dict(B=2, H=3, P=5, D=7), dict(B=3, H=2, P=16, D=130),
               dict(B=1, H=5, P=13, D=67)]
BENCH_SHAPE = dict(B=32, H=32, P=16, D=128)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    B, H, P, D = (shape[n] for n in ("B", "H", "P", "D"))
    return 2 * B * H * P * D + 5 * B * H * P, 4 * (B * H * P * D + B * H * P + B * H * D + B * H)
