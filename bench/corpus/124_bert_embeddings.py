"""BERT embeddings: out[b, s] = LayerNorm(tok_emb[ids[b, s]] + pos_emb[s] + type_emb[tt[b, s]]) with affine gamma/beta, eps 1e-12; ids/tt int64, embeddings f32 [V, D], out f32. B64 S512 D768 V30522. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def bert_embeddings(ids: T.In[T.i64, ("B", "S"), T.Range(0, "V")], tt: T.In[T.i64, ("B", "S"), T.Range(0, "NT")],
                    tok_emb: T.In[T.f32, ("V", "D")], pos_emb: T.In[T.f32, ("P", "D")],
                    type_emb: T.In[T.f32, ("NT", "D")], gamma: T.In[T.f32, ("D",)], beta: T.In[T.f32, ("D",)],
                    out: T.Out[T.f32, ("B", "S", "D")], eps: T.f32):
    B, S = ids.shape
    D = tok_emb.shape[1]
    dims = T.domain(0, D)
    nd = T.cast(D, T.f32)
    for b, s in T.parallel(T.domain(0, B), T.domain(0, S)):
        e = tok_emb[ids[b, s], dims] + pos_emb[s, dims] + type_emb[tt[b, s], dims]
        mean = T.sum(e) / nd
        d = e - mean
        var = T.sum(d * d) / nd
        out[b, s, dims] = d * T.rsqrt(var + eps) * gamma[dims] + beta[dims]


KERNEL = bert_embeddings


def inputs(shape, rng):
    B, S, D, V, P, NT = (shape[k] for k in ("B", "S", "D", "V", "P", "NT"))
    return {"ids": rng.integers(0, V, (B, S)).astype(np.int64), "tt": rng.integers(0, NT, (B, S)).astype(np.int64),
            "tok_emb": rng.standard_normal((V, D)).astype(np.float32),
            "pos_emb": rng.standard_normal((P, D)).astype(np.float32),
            "type_emb": rng.standard_normal((NT, D)).astype(np.float32),
            "gamma": (1.0 + 0.1 * rng.standard_normal(D)).astype(np.float32),
            "beta": (0.1 * rng.standard_normal(D)).astype(np.float32), "eps": 1e-12}


def reference(ids, tt, tok_emb, pos_emb, type_emb, gamma, beta, eps):
    S = ids.shape[1]
    e = tok_emb[ids].astype(np.float64) + pos_emb[:S][None] + type_emb[tt]
    mean = e.mean(axis=-1, keepdims=True)
    var = ((e - mean) ** 2).mean(axis=-1, keepdims=True)
    return {"out": (e - mean) / np.sqrt(var + eps) * gamma + beta}


def peer(ids, tt, tok_emb, pos_emb, type_emb, gamma, beta, eps):
    import torch
    S = ids.shape[1]
    e = tok_emb[ids] + pos_emb[:S][None] + type_emb[tt]
    return {"out": torch.nn.functional.layer_norm(e, (e.shape[-1],), gamma, beta, eps)}


TEST_SHAPES = [dict(B=1, S=1, D=1, V=1, P=1, NT=1), dict(B=2, S=5, D=7, V=11, P=5, NT=2),
               dict(B=3, S=13, D=129, V=97, P=17, NT=2)]
BENCH_SHAPE = dict(B=64, S=512, D=768, V=30522, P=512, NT=2)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
