"""MoE dispatch permute: tokens x [T, D] bf16, each routed to k experts; sorted_idx [T*k] int32 lists the
(token * k + slot) pairs in expert order; out[i, :] = x[sorted_idx[i] // k, :], out [T*k, D] bf16.
T=16384 k=2 D=4096. Peer: torch.compile (x[sorted_idx // k])."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def moe_permute(x: T.In[T.bf16, ("T", "D")],
                sorted_idx: T.In[T.i32, ("TK",)],          # T * topk entries
                out: T.Out[T.bf16, ("TK", "D")],
                topk: T.i32):
    TK = sorted_idx.shape[0]
    D = x.shape[1]
    slots, dims = T.domain(0, TK), T.domain(0, D)
    out[slots, dims] = x[sorted_idx[slots] // topk, dims]


KERNEL = moe_permute
CONSTEXPRS = {}


def inputs(shape, rng):
    Tn, K, D = shape["T"], shape["k"], shape["D"]
    assert shape["TK"] == Tn * K
    experts = rng.integers(0, 8, size=Tn * K)                  # the expert of each (token, slot)
    order = np.argsort(experts, kind="stable").astype(np.int32)
    return dict(x=rng.standard_normal((Tn, D)).astype(np.float32), sorted_idx=order, topk=K)


def reference(x, sorted_idx, topk):
    return dict(out=x[sorted_idx.astype(np.int64) // topk])


def peer(x, sorted_idx, topk):
    return dict(out=x[sorted_idx.long() // topk])


def _shape(Tn, k, D):
    return dict(T=Tn, k=k, TK=Tn * k, D=D)


TEST_SHAPES = [_shape(1, 1, 1), _shape(3, 2, 127), _shape(17, 2, 131), _shape(61, 3, 1031),
               _shape(5, 8, 64)]
BENCH_SHAPE = _shape(16384, 2, 4096)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"


def OPS(shape):
    TK, D = shape["TK"], shape["D"]
    return 0, 2 * 2 * TK * D + 4 * TK
