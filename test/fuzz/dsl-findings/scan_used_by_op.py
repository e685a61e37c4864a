# DSL fuzzer finding (session 26), fixed the same session by scans as values: a scan whose result feeds
# another op before its store was refused by kir-to-pgpu ("constructs a scan only when its results are stored").
import tessel
import tessel.language as T


@tessel.kernel
def kernel(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        y[m, cols] = T.cumsum(row) * 2.0


SHAPES = {"M": 5, "N": 7}
