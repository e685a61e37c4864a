"""gemm: C[M, N] = act(A[M, K] @ B[K, N] (+ bias[N])) with f16 inputs, an f32 accumulator and f32 C.

Constexprs: HAS_BIAS adds the bias row (as the contraction's init, i.e. its only addition);
ACTIVATION is "none", "relu" or "sigmoid". K = 0 gives bias (or zeros) through the activation.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def gemm(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], bias: T.In[T.f32, ("N",)],
         c: T.Out[T.f32, ("M", "N")], HAS_BIAS: T.Constexpr[bool] = False, ACTIVATION: T.Constexpr[str] = "none"):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    init = bias[cols] if HAS_BIAS else None
    acc = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32, init=init)
    if ACTIVATION == "relu":
        acc = T.relu(acc)
    elif ACTIVATION == "sigmoid":
        acc = T.sigmoid(acc)
    elif ACTIVATION != "none":
        raise ValueError(f"ACTIVATION must be none, relu or sigmoid, got {ACTIVATION!r}")
    c[rows, cols] = acc


def reference(a, b, bias, HAS_BIAS=False, ACTIVATION="none"):
    acc = a.astype(np.float64) @ b.astype(np.float64)
    if HAS_BIAS:
        acc = acc + bias
    if ACTIVATION == "relu":
        acc = np.maximum(acc, 0)
    elif ACTIVATION == "sigmoid":
        acc = 1 / (1 + np.exp(-acc))
    return acc
