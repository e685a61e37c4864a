"""MoE unpermute (combine) by scatter-add, the inverse of the dispatch permute (Megablocks' / DeepSpeed-MoE's
scatter, TransformerEngine's moe_unpermute with merging probabilities): the expert outputs y bf16 [N, D]
come in expert order, N = T * K rows for T tokens routed to K experts each; row i is the output for the
(token, slot) pair sorted_idx[i] = token * K + slot (i32, a permutation of 0 .. N-1), and the token's
routing weight for that slot is probs[token, slot] (f32 [T, K]). out[t, :] = sum over the rows i of token
t of probs[t, slot] * y[i, :], f32 [T, D]. T16384 K8 D4096 (N = 131072). Peer: torch index_add_ of the
weighted rows."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def moe_unpermute(y: T.In[T.bf16, ("N", "D")], sorted_idx: T.In[T.i32, ("N",)],
                  probs: T.In[T.f32, ("T", "K")], out: T.InOut[T.f32, ("T", "D")]):
    N, D = y.shape
    K = probs.shape[1]
    rows, dims = T.domain(0, N), T.domain(0, D)
    out[:, :] = 0.0
    pair = sorted_idx[rows]
    kk = T.cast(K, T.i32)
    tok = pair // kk
    w = probs[tok, pair % kk]                         # the routing weight of each row's (token, slot)
    T.scatter_reduce(out, (tok, dims), w * T.cast(y[rows, dims], T.f32), combine="add")


KERNEL = moe_unpermute


def inputs(shape, rng):
    Tn, K, D, N = shape["T"], shape["K"], shape["D"], shape["N"]
    assert N == Tn * K
    pairs = np.arange(N)
    experts = rng.integers(0, 8, size=N)               # a routing: sort the pairs by their expert
    order = pairs[np.argsort(experts, kind="stable")]
    probs = rng.random((Tn, K)).astype(np.float32)
    probs /= np.maximum(probs.sum(axis=1, keepdims=True), 1e-6)
    return dict(y=rng.standard_normal((N, D)).astype(np.float32), sorted_idx=order.astype(np.int32),
                probs=probs, out=np.full((Tn, D), np.nan, np.float32))


def reference(y, sorted_idx, probs, out):
    Tn, K = probs.shape
    res = np.zeros((Tn, y.shape[1]))
    tok, slot = sorted_idx // K, sorted_idx % K
    np.add.at(res, tok, probs[tok, slot][:, None].astype(np.float64) * y.astype(np.float64))
    return dict(out=res)


def peer(y, sorted_idx, probs, out):
    K = probs.shape[1]
    idx = sorted_idx.long()
    tok = idx // K
    w = probs.reshape(-1)[idx]
    return dict(out=out.zero_().index_add_(0, tok, w[:, None] * y.float()))


def OPS(shape):
    N, D, Tn = shape["N"], shape["D"], shape["T"]
    return 2 * N * D, 2 * N * D + 4 * Tn * D + 8 * N


TEST_SHAPES = [dict(T=1, K=1, N=1, D=1), dict(T=13, K=2, N=26, D=37), dict(T=0, K=2, N=0, D=3),
               dict(T=31, K=3, N=93, D=131)]
BENCH_SHAPE = dict(T=16384, K=8, N=131072, D=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch"
