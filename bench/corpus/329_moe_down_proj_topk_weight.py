"""Fused MoE down projection with the routing weights applied (vLLM's fused_moe second GEMM with
MUL_ROUTED_WEIGHT, as Mixtral / Qwen-MoE serving runs it after the gate/up projection and the activation):
T tokens are routed to K experts each; the NP = T * K (token, slot) pairs are sorted by expert, expert e
owning the sorted rows offsets[e] .. offsets[e + 1] - 1 (offsets i32 [E + 1]), and pair_ids i32 [NP] gives
the pair t * K + k of each sorted row. h bf16 [NP, I] holds the activated intermediate rows in that sorted
order, w2 bf16 [E, D, I] each expert's down-projection weight (out x in, as nn.Linear stores it) and
topk_weights f32 [T, K] the router's weights; out[t, k, :] = topk_weights[t, k] * (h[r] @ w2[e]^T) for the
sorted row r of pair (t, k) and its expert e (f32 accumulation), bf16 [T, K, D] (moe_sum then adds the K
slots). T4096 K2 E8 I14336 D4096 (Mixtral 8x7B at a 4096-token prefill). Peer: torch (a loop over the
experts, as Hugging Face's Mixtral block runs it: index, matmul, scale, index_copy)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def moe_down_proj(h: T.In[T.bf16, ("NP", "I")], w2: T.In[T.bf16, ("E", "D", "I")],
                  offsets: T.In[T.i32, ("E1",)], pair_ids: T.In[T.i32, ("NP",)],
                  topk_weights: T.In[T.f32, ("T", "K")], out: T.Out[T.bf16, ("T", "K", "D")]):
    NP, I = h.shape
    E, D = w2.shape[0], w2.shape[1]
    K = topk_weights.shape[1]
    rows, ks, cols = T.domain(0, NP), T.domain(0, I), T.domain(0, D)
    for e in T.parallel(T.domain(0, E)):
        mine = rows[offsets[e]:offsets[e + 1]]
        y = T.matmul(h[mine, ks], w2[e, cols, ks], transpose_rhs=True, acc_dtype=T.f32)   # [mine, D]
        pid = T.cast(pair_ids[mine], T.index)
        tok, slot = pid // K, pid % K
        out[tok, slot, cols] = T.cast(y * topk_weights[tok, slot], T.bf16)


KERNEL = moe_down_proj


def inputs(shape, rng):
    T_, K, E, I, D = shape["T"], shape["K"], shape["E"], shape["I"], shape["D"]
    NP = T_ * K
    assert shape["NP"] == NP and shape["E1"] == E + 1
    # each token picks K distinct experts (K <= E)
    experts = np.stack([rng.permutation(E)[:K] for _ in range(T_)]) if T_ else np.zeros((0, K), np.int64)
    flat = experts.reshape(-1)
    order = np.argsort(flat, kind="stable")
    counts = np.bincount(flat, minlength=E) if NP else np.zeros(E, np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    w = rng.random((T_, K)).astype(np.float32) + 0.05
    w /= w.sum(axis=1, keepdims=True) if T_ else 1.0
    return dict(h=rng.standard_normal((NP, I)).astype(np.float32),
                w2=(rng.standard_normal((E, D, I)) / np.sqrt(max(I, 1))).astype(np.float32),
                offsets=offsets, pair_ids=order.astype(np.int32), topk_weights=w.astype(np.float32))


def reference(h, w2, offsets, pair_ids, topk_weights):
    T_, K = topk_weights.shape
    D = w2.shape[1]
    out = np.zeros((T_ * K, D), np.float64)
    for e in range(w2.shape[0]):
        lo, hi = offsets[e], offsets[e + 1]
        y = h[lo:hi].astype(np.float64) @ w2[e].astype(np.float64).T
        pid = pair_ids[lo:hi]
        out[pid] = y * topk_weights.reshape(-1)[pid, None]
    return dict(out=out.reshape(T_, K, D))


def peer(h, w2, offsets, pair_ids, topk_weights):
    import torch
    T_, K = topk_weights.shape
    D = w2.shape[1]
    out = torch.empty(T_ * K, D, dtype=torch.bfloat16, device=h.device)
    wflat = topk_weights.reshape(-1)
    bounds = offsets.tolist()
    for e in range(w2.shape[0]):
        lo, hi = bounds[e], bounds[e + 1]
        if hi == lo:
            continue
        pid = pair_ids[lo:hi].long()
        y = h[lo:hi] @ w2[e].t()
        out.index_copy_(0, pid, (y.float() * wflat[pid, None]).to(torch.bfloat16))
    return dict(out=out.reshape(T_, K, D))


def OPS(shape):
    NP, I, D, E = shape["NP"], shape["I"], shape["D"], shape["E"]
    return 2 * NP * I * D, 2 * (NP * I + E * D * I + NP * D) + 8 * NP


TEST_SHAPES = [dict(T=1, K=1, NP=1, E=1, E1=2, I=1, D=1), dict(T=5, K=2, NP=10, E=3, E1=4, I=17, D=13),
               dict(T=7, K=2, NP=14, E=4, E1=5, I=37, D=29)]
BENCH_SHAPE = dict(T=4096, K=2, NP=8192, E=8, E1=9, I=14336, D=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch"
