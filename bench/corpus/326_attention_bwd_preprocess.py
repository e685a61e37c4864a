"""FlashAttention backward preprocessing (FA2's _bwd_preprocess_do_o_dot, the Triton tutorial's
_attn_bwd_preprocess): for the forward's output o and its gradient do, both bf16 [B, H, S, D], the row
terms of the softmax backward, delta[b, h, s] = sum over d of o[b, h, s, d] * do[b, h, s, d] (products and
sum in f32), delta f32 [B, H, S]; every backward kernel (dQ, dK, dV) reads it. B4 H32 S4096 D128.
Peer: torch.compile of (o.float() * do.float()).sum(-1)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def attention_bwd_preprocess(o: T.In[T.bf16, ("B", "H", "S", "D")], do: T.In[T.bf16, ("B", "H", "S", "D")],
                             delta: T.Out[T.f32, ("B", "H", "S")]):
    B, H, S, D = o.shape
    dims = T.domain(0, D)
    for b, h, s in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        delta[b, h, s] = T.sum(T.cast(o[b, h, s, dims], T.f32) * T.cast(do[b, h, s, dims], T.f32))


KERNEL = attention_bwd_preprocess


def inputs(shape, rng):
    s = (shape["B"], shape["H"], shape["S"], shape["D"])
    return dict(o=rng.standard_normal(s).astype(np.float32), do=rng.standard_normal(s).astype(np.float32))


def reference(o, do):
    return dict(delta=(o.astype(np.float64) * do).sum(-1))


def peer(o, do):
    return dict(delta=(o.float() * do.float()).sum(-1))


def OPS(shape):
    n = shape["B"] * shape["H"] * shape["S"] * shape["D"]
    return 2 * n, 4 * n + 4 * n // shape["D"]


TEST_SHAPES = [dict(B=1, H=1, S=1, D=1), dict(B=1, H=2, S=3, D=7), dict(B=1, H=2, S=37, D=64),
               dict(B=1, H=2, S=0, D=7)]
BENCH_SHAPE = dict(B=4, H=32, S=4096, D=128)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"
