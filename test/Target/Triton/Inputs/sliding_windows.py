"""Kernels of sliding-window-walks.mlir: walks whose lanes each reduce their own window (Triton.h,
pipelinesWalk; TritonLegalize's LOOP_STAGES default)."""
import tessel
import tessel.language as T


@tessel.kernel
def rolling_sum(x: T.In[T.f32, ("S", "T")], y: T.Out[T.f32, ("S", "T")], W: T.i32):
    S, NT = x.shape
    times = T.domain(0, NT)
    w = T.cast(W, T.index)
    for s, t in T.parallel(T.domain(0, S), times):
        lo = T.maximum(t + 1 - w, 0)
        y[s, t] = T.sum(x[s, times[lo:t + 1]])


@tessel.kernel
def strided_sums(x: T.In[T.f32, ("S", "T")], y: T.Out[T.f32, ("S", "P")], W: T.i32):
    S, NT = x.shape
    times = T.domain(0, NT)
    w = T.cast(W, T.index)
    for s, p in T.parallel(T.domain(0, S), T.domain(0, y.shape[1])):
        lo = T.minimum(p * w, NT)
        y[s, p] = T.sum(x[s, times[lo:T.minimum(lo + w, NT)]])
