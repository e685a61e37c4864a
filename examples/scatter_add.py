"""scatter_add: GRAD_TABLE[v, :] += sum_{t : IDS[t] = v} GRAD_OUT[t, :] for GRAD_OUT[T, D] (f32), ids
IDS[T] (i32, in [0, V)) and the inout GRAD_TABLE[V, D] — the backward of an embedding lookup.
Repeated ids combine with a scatter-reduce add, in no particular order.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def scatter_add(grad_out: T.In[T.f32, ("T", "D")], ids: T.In[T.i32, ("T",), T.Range(0, "V")],
                grad_table: T.InOut[T.f32, ("V", "D")]):
    tokens, dims = T.domain(0, ids.shape[0]), T.domain(0, grad_out.shape[1])
    rows = T.index_relation(ids, tokens)
    T.scatter_reduce(grad_table, (rows, dims), grad_out[tokens, dims], combine="add")


def reference(grad_out, ids, grad_table):
    out = grad_table.astype(np.float64).copy()
    np.add.at(out, ids, grad_out.astype(np.float64))
    return out
