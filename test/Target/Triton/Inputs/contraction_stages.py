"""Kernels of computed-operand-stages.mlir: GEMMs whose operands are loaded directly or computed in the K
loop, and an epilogue tile loaded after it (Resources.cpp, the shared-memory estimate)."""
import tessel
import tessel.language as T


@tessel.kernel
def plain(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")], c: T.Out[T.bf16, ("M", "N")]):
    rows, cols, ks = T.domain(a.shape[0]), T.domain(b.shape[1]), T.domain(a.shape[1])
    c[rows, cols] = T.cast(T.matmul(a[rows, ks], b[ks, cols]), T.bf16)


@tessel.kernel
def residual(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")], r: T.In[T.bf16, ("M", "N")],
             y: T.Out[T.bf16, ("M", "N")]):
    rows, cols, ks = T.domain(a.shape[0]), T.domain(b.shape[1]), T.domain(a.shape[1])
    acc = T.matmul(a[rows, ks], b[ks, cols])
    y[rows, cols] = T.cast(acc + T.cast(r[rows, cols], T.f32), T.bf16)
