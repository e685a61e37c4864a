"""Second spelling: the key/value summary (sum_j phi(k_j)^T v_j, sum_j phi(k_j)) as a region fold over the sequence, as examples/linear_attention.py folds its state. Non-causal linear attention with the elu+1 feature map: phi = elu(x) + 1; out[b, h, i] = phi(q_i) (sum_j phi(k_j)^T v_j) / (phi(q_i) . sum_j phi(k_j)); Q, K, V bf16 [B, H, S, D], out bf16. B8 H16 S4096 D64. Peer: torch.compile of the einsum formula."""
import numpy as np

import tessel
import tessel.language as T


def phi(x):
    return T.where(x > 0.0, x, T.expm1(x)) + 1.0


@tessel.fn
def summarize(pk, v):
    return T.contract(pk, v, reduce=((0, 0),), acc_dtype=T.f32), T.sum(pk, axis=0)


@tessel.fn
def add_pairs(s1, z1, s2, z2):
    return s1 + s2, z1 + z2


@tessel.kernel
def linear_attention_elu_b(Q: T.In[T.bf16, ("B", "H", "S", "D")], K: T.In[T.bf16, ("B", "H", "S", "D")],
                         V: T.In[T.bf16, ("B", "H", "S", "D")], O: T.Out[T.bf16, ("B", "H", "S", "D")]):
    B, H, S, D = Q.shape
    seq, dims = T.domain(0, S), T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        pk = phi(T.cast(K[b, h, seq, dims], T.f32))
        kv, z = T.region_fold(sources=(pk, T.cast(V[b, h, seq, dims], T.f32)), axis=0,
                              identity=(T.zeros((dims, dims)), T.zeros(dims)),
                              summarize=summarize, combine=add_pairs, operands=())
        pq = phi(T.cast(Q[b, h, seq, dims], T.f32))
        num = T.matmul(pq, kv)                                                     # [S, D]
        den = T.matvec(pq, z)                                                      # [S]
        O[b, h, seq, dims] = T.cast(num / den, T.bf16)


KERNEL = linear_attention_elu_b


def inputs(shape, rng):
    s = (shape["B"], shape["H"], shape["S"], shape["D"])
    return {"Q": rng.standard_normal(s).astype(np.float32), "K": rng.standard_normal(s).astype(np.float32),
            "V": rng.standard_normal(s).astype(np.float32)}


def _phi(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0))) + 1.0


def reference(Q, K, V):
    pq, pk, v = _phi(Q.astype(np.float64)), _phi(K.astype(np.float64)), V.astype(np.float64)
    kv = np.einsum("bhsd,bhse->bhde", pk, v)
    z = pk.sum(axis=2)
    num = np.einsum("bhsd,bhde->bhse", pq, kv)
    den = np.einsum("bhsd,bhd->bhs", pq, z)
    return {"O": num / den[..., None]}


def peer(Q, K, V):
    import torch
    import torch.nn.functional as F
    pq, pk = F.elu(Q.float()) + 1, F.elu(K.float()) + 1
    kv = torch.einsum("bhsd,bhse->bhde", pk, V.float())
    z = pk.sum(dim=2)
    num = torch.einsum("bhsd,bhde->bhse", pq, kv)
    den = torch.einsum("bhsd,bhd->bhs", pq, z)
    return {"O": (num / den[..., None]).to(Q.dtype)}


TEST_SHAPES = [dict(B=1, H=1, S=1, D=1), dict(B=1, H=2, S=7, D=3), dict(B=2, H=1, S=13, D=5)]
BENCH_SHAPE = dict(B=8, H=16, S=4096, D=64)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile(einsum formula)"
