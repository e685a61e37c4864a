"""Fused linear cross-entropy: per row loss = logsumexp(h @ W^T) - (h @ W^T)[label], h [N, K] bf16, W [V, K] bf16, labels [N] int64; the [N, V] logits need not be stored. N4096 K4096 V32000; output the per-row loss f32. Peer: torch.compile of the unfused math."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def fused_linear_cross_entropy(h: T.In[T.bf16, ("N", "K")], w: T.In[T.bf16, ("V", "K")],
                               labels: T.In[T.i64, ("N",), T.Range(0, "V")], loss: T.Out[T.f32, ("N",)]):
    N, K = h.shape
    V = w.shape[0]
    vocab, ks = T.domain(0, V), T.domain(0, K)
    for n in T.parallel(T.domain(0, N)):
        logits = T.matvec(w[vocab, ks], h[n, ks])                   # f32 [V]
        mx = T.max(logits)
        lse = mx + T.log(T.sum(T.exp(logits - mx)))
        target = T.dot(w[labels[n], ks], h[n, ks])
        loss[n] = lse - target


KERNEL = fused_linear_cross_entropy


def inputs(shape, rng):
    N, K, V = shape["N"], shape["K"], shape["V"]
    return {"h": rng.standard_normal((N, K)).astype(np.float32),
            "w": (rng.standard_normal((V, K)) / np.sqrt(K)).astype(np.float32),
            "labels": rng.integers(0, V, N).astype(np.int64)}


def reference(h, w, labels):
    z = h.astype(np.float64) @ w.astype(np.float64).T
    mx = z.max(axis=1)
    lse = mx + np.log(np.exp(z - mx[:, None]).sum(axis=1))
    return {"loss": lse - z[np.arange(len(labels)), labels]}


def peer(h, w, labels):
    import torch
    logits = (h @ w.T).float()
    return {"loss": torch.nn.functional.cross_entropy(logits, labels, reduction="none")}


TEST_SHAPES = [dict(N=1, K=1, V=1), dict(N=3, K=17, V=131), dict(N=5, K=32, V=257)]
BENCH_SHAPE = dict(N=4096, K=4096, V=32000)
TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "torch.compile"
