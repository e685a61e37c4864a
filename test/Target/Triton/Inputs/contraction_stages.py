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


@tessel.kernel
def exp_rows(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")], c: T.Out[T.bf16, ("M", "N")]):
    """One exponential an element of the A tile (prologue-bound at 128 columns, not past it)."""
    rows, cols, ks = T.domain(a.shape[0]), T.domain(b.shape[1]), T.domain(a.shape[1])
    h = T.cast(T.exp(T.cast(a[rows, ks], T.f32)), T.bf16)
    c[rows, cols] = T.cast(T.matmul(h, b[ks, cols]), T.bf16)


@tessel.kernel
def sigmoid_cols(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")], c: T.Out[T.bf16, ("M", "N")]):
    """The B operand computed (a sigmoid an element): the rows are the axis its recomputation follows."""
    rows, cols, ks = T.domain(a.shape[0]), T.domain(b.shape[1]), T.domain(a.shape[1])
    bf = T.cast(b[ks, cols], T.f32)
    h = T.cast(bf * T.sigmoid(bf), T.bf16)
    c[rows, cols] = T.cast(T.matmul(a[rows, ks], h), T.bf16)


@tessel.kernel
def scaled(a: T.In[T.bf16, ("M", "K")], s: T.In[T.f32, ("M",)], b: T.In[T.bf16, ("K", "N")],
           c: T.Out[T.bf16, ("M", "N")]):
    """A per-row reciprocal square root times the A tile: the MUFU work is per row, not per element."""
    rows, cols, ks = T.domain(a.shape[0]), T.domain(b.shape[1]), T.domain(a.shape[1])
    h = T.cast(T.cast(a[rows, ks], T.f32) * T.rsqrt(s[rows]), T.bf16)
    c[rows, cols] = T.cast(T.matmul(h, b[ks, cols]), T.bf16)
