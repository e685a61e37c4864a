"""Second spelling: the bias added after the product instead of as its init= (with init= the row softmax stays at kernel level and recomputes the row per element). Classifier head: probs = softmax(X @ W + b) over the classes, X bf16 [M, K], W bf16 [K, C], b f32 [C], probs f32 [M, C]. M16384 K1024 C1000. Peer: torch.compile."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def classifier_head_b(x: T.In[T.bf16, ("M", "K")], w: T.In[T.bf16, ("K", "C")], b: T.In[T.f32, ("C",)],
                    probs: T.Out[T.f32, ("M", "C")]):
    M, K = x.shape
    C = w.shape[1]
    rows, ks, classes = T.domain(0, M), T.domain(0, K), T.domain(0, C)
    logits = T.matmul(x[rows, ks], w[ks, classes], acc_dtype=T.f32) + b[classes]
    e = T.exp(logits - T.max(logits, axis=1))
    probs[rows, classes] = e / T.sum(e, axis=1)


KERNEL = classifier_head_b


def inputs(shape, rng):
    M, K, C = shape["M"], shape["K"], shape["C"]
    return {"x": rng.standard_normal((M, K)).astype(np.float32),
            "w": (rng.standard_normal((K, C)) * (2.0 / np.sqrt(K))).astype(np.float32),
            "b": rng.standard_normal(C).astype(np.float32)}


def reference(x, w, b):
    logits = x.astype(np.float64) @ w.astype(np.float64) + b
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return {"probs": e / e.sum(axis=1, keepdims=True)}


def peer(x, w, b):
    import torch
    return {"probs": torch.softmax((x @ w).float() + b, dim=1)}


TEST_SHAPES = [dict(M=1, K=1, C=1), dict(M=3, K=37, C=127), dict(M=2, K=67, C=211)]
BENCH_SHAPE = dict(M=16384, K=1024, C=1000)
TOLERANCE = dict(rtol=1e-3, atol=1e-5)
# The peer rounds x @ w to bf16 before the bias and softmax (2^-9 of each logit: up to ~2% of a
# probability); tessel keeps the f32 accumulator. The bench check compares the two at that distance.
BENCH_TOLERANCE = dict(rtol=5e-2, atol=1e-4)
PEER = "torch.compile"
