# DSL fuzzer finding (session 26), open: a T.buffer created inside a T.parallel member is refused by
# kir-to-pgpu ("does not construct 'kir.buffer' here yet"); a kernel-level buffer written inside the
# T.parallel is built.
import tessel
import tessel.language as T


@tessel.kernel
def kernel(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        b = T.buffer(over=(cols,), dtype=T.f32, init=0.0)
        b[cols] = b[cols] + x[m, cols]
        y[m, cols] = b[cols] * 2.0


SHAPES = {"M": 5, "N": 7}
