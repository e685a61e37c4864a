"""cross_entropy: LOSS[m] = logsumexp(LOGITS[m, :]) - LOGITS[m, TARGET[m]] for LOGITS[M, C] (f32) and
class ids TARGET[M] (i32, in [0, C)); logsumexp(r) = max(r) + log(sum(exp(r - max(r)))).
The target logit is a load at the data-dependent coordinate (m, TARGET[m]).
"""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def cross_entropy(logits: T.In[T.f32, ("M", "C")], target: T.In[T.i32, ("M",), T.Range(0, "C")],
                  loss: T.Out[T.f32, ("M",)]):
    M, C = logits.shape
    classes = T.domain(0, C)
    for m in T.parallel(T.domain(0, M)):
        row = logits[m, classes]
        mx = T.max(row)
        lse = mx + T.log(T.sum(T.exp(row - mx)))
        loss[m] = lse - logits[m, target[m]]


def reference(logits, target):
    x = logits.astype(np.float64)
    if x.shape[0] == 0:
        return np.zeros(0)
    mx = x.max(axis=1, keepdims=True)
    lse = (mx + np.log(np.exp(x - mx).sum(axis=1, keepdims=True)))[:, 0]
    return lse - x[np.arange(x.shape[0]), target]
