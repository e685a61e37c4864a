"""linear_attention: causal linear attention with phi(x) = max(x, 0) + 1 for Q, K[B, H, T, D] and
V[B, H, T, E] (f32):
    S_t = sum_{s <= t} phi(K[s])^T V[s],  z_t = sum_{s <= t} phi(K[s])
    O[b, h, t, :] = (phi(Q[t]) S_t) / (phi(Q[t]) . z_t)
and the final state S_T, z_T in S_OUT[B, H, D, E] and Z_OUT[B, H, D].

Each (b, h) is one region scan over time: a slice's transition is (phi(K)^T V, sum phi(K)); the state
(S, z) starts at zero; `emit` combines the incoming state with the causal part inside the slice.
"""
import numpy as np

import tessel
import tessel.language as T


def phi(x):
    return T.relu(x) + 1.0


@tessel.fn
def summarize(pk, v, pq, t):
    return T.contract(pk, v, reduce=((0, 0),), acc_dtype=T.f32), T.sum(pk, axis=0)


@tessel.fn
def add_pairs(s1, z1, s2, z2):
    return s1 + s2, z1 + z2


@tessel.fn
def emit(pk, v, pq, t, s, z):
    scores = T.contract(pq, pk, reduce=((1, 1),), acc_dtype=T.f32)          # [query, key] of the slice
    t_query = T.broadcast_to(t, scores, dims=[0])
    t_key = T.broadcast_to(t, scores, dims=[1])
    causal = T.where(t_key <= t_query, scores, 0.0)
    num = T.matmul(pq, s, acc_dtype=T.f32) + T.matmul(causal, v, acc_dtype=T.f32)
    den = T.matvec(pq, z, acc_dtype=T.f32) + T.sum(causal, axis=1)
    return num / den


@tessel.kernel
def linear_attention(Q: T.In[T.f32, ("B", "H", "T", "D")], K: T.In[T.f32, ("B", "H", "T", "D")],
                     V: T.In[T.f32, ("B", "H", "T", "E")], O: T.Out[T.f32, ("B", "H", "T", "E")],
                     S_OUT: T.Out[T.f32, ("B", "H", "D", "E")], Z_OUT: T.Out[T.f32, ("B", "H", "D")]):
    nb, nh, nt, nd = Q.shape
    time, dk, dv = T.domain(0, nt), T.domain(0, nd), T.domain(0, V.shape[3])
    s0, z0 = T.zeros((dk, dv)), T.zeros(dk)
    for b, h in T.parallel(T.domain(0, nb), T.domain(0, nh)):
        pq, pk = phi(Q[b, h, time, dk]), phi(K[b, h, time, dk])
        (o,), (s, z) = T.region_scan(
            sources=(pk, V[b, h, time, dv], pq, T.indices(time)), axis=0,
            identity=(s0, z0), init=(s0, z0),
            summarize=summarize, combine=add_pairs, apply=add_pairs, emit=emit)
        O[b, h, time, dv] = o
        S_OUT[b, h, dk, dv] = s
        Z_OUT[b, h, dk] = z


def reference(Q, K, V):
    pq = np.maximum(Q.astype(np.float64), 0) + 1
    pk = np.maximum(K.astype(np.float64), 0) + 1
    v = V.astype(np.float64)
    S = np.cumsum(np.einsum("bhtd,bhte->bhtde", pk, v), axis=2)
    z = np.cumsum(pk, axis=2)
    num = np.einsum("bhtd,bhtde->bhte", pq, S)
    den = np.einsum("bhtd,bhtd->bht", pq, z)
    return {"O": num / den[..., None], "S_OUT": S[:, :, -1], "Z_OUT": z[:, :, -1]}
