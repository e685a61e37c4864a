"""embedding: OUT[t, :] = TABLE[IDS[t], :] for TABLE[V, D] (f32) and token ids IDS[T] (i32, in [0, V)).
The ids become an index relation over the token domain; the rows are read with a gather.
"""
import tessel
import tessel.language as T


@tessel.kernel
def embedding(table: T.In[T.f32, ("V", "D")], ids: T.In[T.i32, ("T",), T.Range(0, "V")],
              out: T.Out[T.f32, ("T", "D")]):
    tokens, dims = T.domain(0, ids.shape[0]), T.domain(0, table.shape[1])
    rows = T.index_relation(ids, tokens)
    out[tokens, dims] = table[rows, dims]


def reference(table, ids):
    return table[ids]
