"""Kernels of recurrence-prefetch.mlir: serial loops over time that carry a state (Triton.h,
prefetchesRecurrence)."""
import tessel
import tessel.language as T


@tessel.kernel
def scalar_state(x: T.In[T.f32, ("B", "T")], y: T.Out[T.f32, ("B", "T")]):
    B, TT = x.shape
    for b in T.parallel(T.domain(0, B)):
        h = 0.0
        for t in T.domain(0, TT):
            h = 0.5 * h + x[b, t]
            y[b, t] = h


@tessel.kernel
def row_sums(x: T.In[T.f32, ("B", "T", "C")], y: T.Out[T.f32, ("B", "T")]):
    B, TT, C = x.shape
    cols = T.domain(0, C)
    for b in T.parallel(T.domain(0, B)):
        h = 0.0
        for t in T.domain(0, TT):
            h = 0.5 * h + T.sum(x[b, t, cols])
            y[b, t] = h


@tessel.kernel
def no_carry(x: T.In[T.f32, ("B", "T", "C")], y: T.Out[T.f32, ("B", "T", "C")]):
    B, TT, C = x.shape
    chans = T.domain(0, C)
    for b in T.parallel(T.domain(0, B)):
        for t in T.domain(0, TT):
            y[b, t, chans] = 2.0 * x[b, t, chans]
