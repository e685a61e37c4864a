# DSL fuzzer finding (session 26), fixed in session 45: a scan stored at kernel level (no T.parallel) was
# refused by kir-to-pgpu ("a top-level stored scan is not constructed yet"); its store is now a workset of
# lines along the other axes, each one range scan.
import tessel
import tessel.language as T


@tessel.kernel
def kernel(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    y[rows, cols] = T.cumsum(x[rows, cols], axis=1)


SHAPES = {"M": 5, "N": 7}
