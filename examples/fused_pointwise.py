"""fused_pointwise: Z[n] = sigmoid(x) * tanh(Y[n]) + alpha * max(x, Y[n]) - sqrt(|Y[n]|), x = f32(X[n]),
for X[N] (f16), Y[N] (f32) and a runtime scalar alpha: one chain of pointwise ops with an explicit cast.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def fused_pointwise(x: T.In[T.f16, ("N",)], y: T.In[T.f32, ("N",)], z: T.Out[T.f32, ("N",)], alpha: T.f32):
    n = T.domain(0, x.shape[0])
    xf, yv = T.cast(x[n], T.f32), y[n]
    z[n] = T.sigmoid(xf) * T.tanh(yv) + alpha * T.where(xf > yv, xf, yv) - T.sqrt(T.abs(yv))


def reference(x, y, alpha):
    x, y = x.astype(np.float64), y.astype(np.float64)
    return 1 / (1 + np.exp(-x)) * np.tanh(y) + np.float32(alpha) * np.maximum(x, y) - np.sqrt(np.abs(y))
