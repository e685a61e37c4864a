"""transpose: OUT[n, m] = X[m, n] for X[M, N] (f32): load the whole tensor, swap its axes, store."""
import tessel
import tessel.language as T


@tessel.kernel
def transpose(x: T.In[T.f32, ("M", "N")], out: T.Out[T.f32, ("N", "M")]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    out[cols, rows] = T.transpose(x[rows, cols])


def reference(x):
    return x.T.copy()
