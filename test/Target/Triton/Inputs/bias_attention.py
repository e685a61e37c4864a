"""Kernel of gluon-pointer-tiles.mlir: whole-row attention with an additive f32 bias tile over the keys (the
bias is read in each key tile beside the K and V streams, and is no contraction's operand)."""
import tessel
import tessel.language as T


@tessel.kernel
def bias_rows(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "H", "T", "D")],
              v: T.In[T.bf16, ("B", "H", "T", "D")], bias: T.In[T.f32, ("H", "S", "T")],
              o: T.Out[T.bf16, ("B", "H", "S", "D")], scale: T.f32):
    B, H, S, D = q.shape
    keys, dims = k.domain(2), T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale + bias[h, i, keys]
        p = T.exp(s - T.max(s))
        o[b, h, i, dims] = T.cast(T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims]) / T.sum(p), T.bf16)


@tessel.kernel
def bf16_bias_rows(q: T.In[T.bf16, ("B", "H", "S", "D")], k: T.In[T.bf16, ("B", "H", "T", "D")],
                   v: T.In[T.bf16, ("B", "H", "T", "D")], bias: T.In[T.bf16, ("H", "S", "T")],
                   o: T.Out[T.bf16, ("B", "H", "S", "D")], scale: T.f32):
    """The same with a bf16 bias: a tile a TMA box could describe, still read with pointers."""
    B, H, S, D = q.shape
    keys, dims = k.domain(2), T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale + T.cast(bias[h, i, keys], T.f32)
        p = T.exp(s - T.max(s))
        o[b, h, i, dims] = T.cast(T.vecmat(T.cast(p, T.bf16), v[b, h, keys, dims]) / T.sum(p), T.bf16)
