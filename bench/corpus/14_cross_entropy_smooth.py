"""Cross-entropy with label smoothing and ignore_index: logits bf16 [M, V] (8192 x 128256), labels
int64 [M]. Per-row loss (f32) = (1 - eps) * (lse - x[label]) + eps * (lse - mean(x)), and 0 for rows
whose label equals ignore_index (-100), as torch's cross_entropy(reduction='none', label_smoothing=eps).
Peer: liger fused CE, torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def cross_entropy_smooth(logits: T.In[T.bf16, ("M", "V")],
                         labels: T.In[T.i64, ("M",)],
                         loss: T.Out[T.f32, ("M",)],
                         smoothing: T.f32,
                         IGNORE_INDEX: T.Constexpr[int] = -100):
    M, V = logits.shape
    cols = T.domain(0, V)
    for m in T.parallel(T.domain(0, M)):
        lab = labels[m]
        if lab == IGNORE_INDEX:
            loss[m] = 0.0
        else:
            row = T.cast(logits[m, cols], T.f32)
            mx = T.max(row)
            lse = mx + T.log(T.sum(T.exp(row - mx)))
            target = T.cast(logits[m, lab], T.f32)
            mean = T.sum(row) / T.cast(V, T.f32)
            loss[m] = (1.0 - smoothing) * (lse - target) + smoothing * (lse - mean)


KERNEL = cross_entropy_smooth
CONSTEXPRS = {"IGNORE_INDEX": -100}


def inputs(shape, rng):
    M, V = shape["M"], shape["V"]
    labels = rng.integers(0, V, size=M).astype(np.int64)
    labels[rng.random(M) < 0.25] = -100
    if M > 1:
        labels[0] = V - 1
    return {
        "logits": (rng.standard_normal((M, V)) * 3.0).astype(np.float32),
        "labels": labels,
        "smoothing": 0.1,
    }


def reference(logits, labels, smoothing):
    x = logits.astype(np.float64)
    mx = x.max(axis=1, keepdims=True)
    lse = (mx + np.log(np.exp(x - mx).sum(axis=1, keepdims=True)))[:, 0]
    valid = labels != -100
    tgt = x[np.arange(x.shape[0]), np.where(valid, labels, 0)]
    out = (1.0 - smoothing) * (lse - tgt) + smoothing * (lse - x.mean(axis=1))
    return {"loss": np.where(valid, out, 0.0)}


def peer(logits, labels, smoothing):
    import torch.nn.functional as F
    return {"loss": F.cross_entropy(logits.float(), labels, ignore_index=-100,
                                    label_smoothing=smoothing, reduction="none")}


TEST_SHAPES = [dict(M=1, V=1), dict(M=3, V=127), dict(M=17, V=1031), dict(M=5, V=4099)]
BENCH_SHAPE = dict(M=8192, V=128256)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "liger fused CE / torch.compile"


def OPS(shape):
    n = shape["M"] * shape["V"]
    return 5 * n, 2 * n + 12 * shape["M"]
