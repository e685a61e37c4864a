"""ArcFace (additive angular margin) logits for face-recognition training (insightface's
CombinedMarginLoss with m2 = m): cos[i, c] = <e_i / |e_i|, w_c / |w_c|> for embeddings E [B, D] and class
centres W [C, D] (f16); at each sample's own class labels[i] the logit uses cos(theta + m) =
cos * cos(m) - sin * sin(m) with sin = sqrt(1 - cos^2) where cos > cos(pi - m), else cos - m * sin(pi - m)
(the "easy margin" off); every logit is then multiplied by the scale s: logits f32 [B, C]. B=1024
D=512 C=85742 (MS1MV2's identities). Peer: torch.compile of F.normalize, F.linear and the margin."""
import math

import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def arcface_margin_logits(emb: T.In[T.f16, ("B", "D")], centers: T.In[T.f16, ("C", "D")],
                          labels: T.In[T.i64, ("B",), T.Range(0, "C")], logits: T.Out[T.f32, ("B", "C")],
                          s: T.f32, m: T.f32):
    B, D = emb.shape
    C = centers.shape[0]
    rows, cols, dims = T.domain(0, B), T.domain(0, C), T.domain(0, D)
    ef = T.cast(emb[rows, dims], T.f32)
    wf = T.cast(centers[cols, dims], T.f32)
    inv_e = 1.0 / T.maximum(T.sqrt(T.sum(ef * ef, axis=1)), 1e-12)
    inv_w = 1.0 / T.maximum(T.sqrt(T.sum(wf * wf, axis=1)), 1e-12)
    cos = T.matmul(emb[rows, dims], centers[cols, dims], transpose_rhs=True) * inv_e * inv_w
    sin = T.sqrt(T.maximum(1.0 - cos * cos, 0.0))
    phi = cos * T.cos(m) - sin * T.sin(m)
    phi = T.where(cos > T.cos(math.pi - m), phi, cos - m * T.sin(math.pi - m))
    is_label = T.broadcast(T.indices(cols), over=(rows, cols), dims=[1]) == T.cast(labels[rows], T.index)
    logits[rows, cols] = T.where(is_label, phi, cos) * s


KERNEL = arcface_margin_logits


def inputs(shape, rng):
    B, D, C = shape["B"], shape["D"], shape["C"]
    return dict(emb=rng.standard_normal((B, D)).astype(np.float16),
                centers=rng.standard_normal((C, D)).astype(np.float16),
                labels=rng.integers(0, C, size=B).astype(np.int64), s=64.0, m=0.5)


def reference(emb, centers, labels, s, m):
    e, w = emb.astype(np.float64), centers.astype(np.float64)
    e = e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)
    w = w / np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-12)
    cos = e @ w.T
    m = float(np.float32(m))
    sin = np.sqrt(np.maximum(1.0 - cos * cos, 0.0))
    phi = np.where(cos > math.cos(math.pi - m), cos * math.cos(m) - sin * math.sin(m),
                   cos - m * math.sin(math.pi - m))
    hit = np.arange(centers.shape[0])[None, :] == labels[:, None]
    return dict(logits=np.where(hit, phi, cos) * s)


def peer(emb, centers, labels, s, m):
    import torch
    import torch.nn.functional as F
    cos = F.linear(F.normalize(emb.float()), F.normalize(centers.float()))
    sin = (1.0 - cos * cos).clamp(min=0.0).sqrt()
    phi = torch.where(cos > math.cos(math.pi - m), cos * math.cos(m) - sin * math.sin(m),
                      cos - m * math.sin(math.pi - m))
    hit = F.one_hot(labels, centers.shape[0]).bool()
    return dict(logits=torch.where(hit, phi, cos) * s)


def OPS(shape):
    B, D, C = shape["B"], shape["D"], shape["C"]
    return 2 * B * C * D, 2 * (B * D + C * D) + 4 * B * C


TEST_SHAPES = [dict(B=1, D=1, C=1), dict(B=5, D=17, C=37), dict(B=19, D=64, C=131)]
BENCH_SHAPE = dict(B=1024, D=512, C=85742)
TOLERANCE = dict(rtol=1e-3, atol=2e-3)
PEER = "torch.compile"
