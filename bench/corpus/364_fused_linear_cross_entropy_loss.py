"""Fused linear + cross-entropy, per-row loss, the logits never written (Liger's fused linear CE
forward): logits = X @ W^T with X bf16 [N, H] (the final hidden states of N tokens) and W bf16 [V, H]
(the LM head), accumulated in f32; per row, loss[n] = logsumexp(logits[n]) - logits[n, labels[n]],
labels i64 [N] in [0, V). Output loss f32 [N]. N4096 H2048 V32000. Peer: torch.compile(F.cross_entropy((X
@ W.T).float(), labels, reduction="none"))."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def linear_cross_entropy(x: T.In[T.bf16, ("N", "H")], w: T.In[T.bf16, ("V", "H")],
                         labels: T.In[T.i64, ("N",), T.Range(0, "V")], loss: T.Out[T.f32, ("N",)]):
    N, H = x.shape
    V = w.shape[0]
    ks, vocab = T.domain(0, H), T.domain(0, V)
    for n in T.parallel(T.domain(0, N)):
        logits = T.matvec(w[vocab, ks], x[n, ks], acc_dtype=T.f32)
        mx = T.max(logits)
        lse = mx + T.log(T.sum(T.exp(logits - mx)))
        loss[n] = lse - T.dot(w[labels[n], ks], x[n, ks], acc_dtype=T.f32)


KERNEL = linear_cross_entropy


def inputs(shape, rng):
    N, H, V = shape["N"], shape["H"], shape["V"]
    return dict(x=rng.standard_normal((N, H)).astype(np.float32),
                w=(rng.standard_normal((V, H)) / np.sqrt(max(H, 1))).astype(np.float32),
                labels=rng.integers(0, max(V, 1), N).astype(np.int64))


def reference(x, w, labels):
    lg = x.astype(np.float64) @ w.astype(np.float64).T
    if lg.shape[1] == 0:
        return dict(loss=np.full(x.shape[0], np.nan))
    mx = lg.max(axis=1)
    lse = mx + np.log(np.exp(lg - mx[:, None]).sum(axis=1))
    return dict(loss=lse - lg[np.arange(x.shape[0]), labels])


def peer(x, w, labels):
    import torch.nn.functional as F
    return dict(loss=F.cross_entropy((x @ w.T).float(), labels, reduction="none"))


def OPS(shape):
    N, H, V = shape["N"], shape["H"], shape["V"]
    return 2 * N * H * V + 4 * N * V, 2 * (N * H + V * H) + 12 * N


TEST_SHAPES = [dict(N=0, H=5, V=7), dict(N=1, H=1, V=1), dict(N=3, H=17, V=131), dict(N=17, H=67, V=1031),
               dict(N=5, H=131, V=257)]
BENCH_SHAPE = dict(N=4096, H=2048, V=32000)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
BENCH_TOLERANCE = dict(rtol=2e-3, atol=1e-2)         # the peer rounds its logits to bf16 (X @ W.T in bf16)
PEER = "torch.compile"
