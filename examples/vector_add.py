"""vector_add: Z[n] = relu(X[n] + Y[n]) * scale for X, Y, Z of shape [N] (f32) and a runtime scalar
`scale`; relu(v) = max(v, 0) lets a NaN through. Whole-tensor: no parallel loop is needed.
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def vector_add(x: T.In[T.f32, ("N",)], y: T.In[T.f32, ("N",)], z: T.Out[T.f32, ("N",)], scale: T.f32):
    n = T.domain(0, x.shape[0])
    z[n] = T.relu(x[n] + y[n]) * scale


def reference(x, y, scale):
    return np.maximum(x.astype(np.float64) + y, 0.0) * np.float32(scale)
