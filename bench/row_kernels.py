"""Row kernels the benchmark runs besides the examples: a row sum, and bf16 variants of the row
kernels (bf16 in and out, f32 arithmetic), written like the examples (issue 7's bf16 targets)."""
import tessel
import tessel.language as T


@tessel.kernel
def rowsum(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m] = T.sum(x[m, cols])


@tessel.kernel
def rowsum_bf16(x: T.In[T.bf16, ("M", "N")], y: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m] = T.sum(T.cast(x[m, cols], T.f32))


@tessel.kernel
def softmax_bf16(x: T.In[T.bf16, ("M", "N")], y: T.Out[T.bf16, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(x[m, cols], T.f32)
        e = T.exp(row - T.max(row))
        y[m, cols] = T.cast(e / T.sum(e), T.bf16)


@tessel.kernel
def layernorm_bf16(x: T.In[T.bf16, ("M", "N")], w: T.In[T.bf16, ("N",)], b: T.In[T.bf16, ("N",)],
                   y: T.Out[T.bf16, ("M", "N")], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    weight, bias = T.cast(w[cols], T.f32), T.cast(b[cols], T.f32)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(x[m, cols], T.f32)
        mean = T.sum(row) / T.cast(N, T.f32)
        centered = row - mean
        var = T.sum(centered * centered) / T.cast(N, T.f32)
        y[m, cols] = T.cast(centered * T.rsqrt(var + eps) * weight + bias, T.bf16)


@tessel.kernel
def rmsnorm_bf16(x: T.In[T.bf16, ("M", "N")], w: T.In[T.bf16, ("N",)], y: T.Out[T.bf16, ("M", "N")],
                 eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    weight = T.cast(w[cols], T.f32)
    for m in T.parallel(T.domain(0, M)):
        row = T.cast(x[m, cols], T.f32)
        mean_square = T.sum(row * row) / T.cast(N, T.f32)
        y[m, cols] = T.cast(row * T.rsqrt(mean_square + eps) * weight, T.bf16)


@tessel.kernel
def argmax_bf16(x: T.In[T.bf16, ("M", "N")], v: T.Out[T.bf16, ("M",)], idx: T.Out[T.i64, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        best, pos = T.argmax(x[m, cols], tie="lowest", nan="propagate")
        v[m] = best
        idx[m] = T.cast(pos, T.i64)
