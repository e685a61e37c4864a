# DSL fuzzer finding (session 26), open: a runtime `while` traces and runs on the KIR interpreter but
# kir-to-pgpu does not construct kir.while ("kir-to-pgpu does not construct 'kir.while' here yet").
import tessel
import tessel.language as T


@tessel.kernel
def kernel(x: T.In[T.f32, ("M", "N")], y: T.Out[T.i32, ("M",)]):
    M, N = x.shape
    for m in T.parallel(T.domain(0, M)):
        i = T.index(0)
        while i < N and x[m, i] <= 0.5:
            i = i + 1
        y[m] = T.cast(i, T.i32)


SHAPES = {"M": 5, "N": 7}
