# DSL fuzzer finding (session 26), open: a runtime `if` whose branches assign a tensor is refused by
# kir-to-pgpu ("kir.if results must be scalars for now"); the KIR interpreter runs it.
import tessel
import tessel.language as T


@tessel.kernel
def kernel(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        if T.sum(row) > 0.0:
            t = row * 2.0
        else:
            t = -row
        y[m, cols] = t


SHAPES = {"M": 5, "N": 7}
