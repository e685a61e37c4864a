"""CLIP contrastive loss (symmetric InfoNCE, open_clip's ClipLoss on one device): logits = scale *
img @ txt^T for image and text embeddings img, txt bf16 [N, D] (L2-normalized rows), scale a runtime f32
(exp of the learned temperature); the loss is the mean of the image-to-text and text-to-image
cross-entropies with the matching pair as the label: loss[0] = (sum_i (lse_j logits[i, j] - logits[i, i])
+ sum_j (lse_i logits[i, j] - logits[j, j])) / (2N). N16384 D768. Peer: torch.compile (matmul and two
F.cross_entropy)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def clip_contrastive_loss(img: T.In[T.bf16, ("N", "D")], txt: T.In[T.bf16, ("N", "D")], loss: T.Out[T.f32, (1,)],
                          scale: T.f32):
    N, D = img.shape
    rows, cols, dims = T.domain(0, N), T.domain(0, N), T.domain(0, D)
    logits = T.matmul(img[rows, dims], txt[cols, dims], transpose_rhs=True) * scale      # f32 [N, N]
    mr = T.max(logits, axis=1)
    # rows and cols are one domain (two T.domain(0, N)): spread the row maxima along the columns explicitly
    lse_rows = mr + T.log(T.sum(T.exp(logits - T.broadcast(mr, over=(rows, cols), dims=[0])), axis=1))
    mc = T.max(logits, axis=0)
    lse_cols = mc + T.log(T.sum(T.exp(logits - mc), axis=0))
    diag = T.sum(T.cast(img[rows, dims], T.f32) * T.cast(txt[rows, dims], T.f32), axis=1) * scale
    loss[0] = (T.sum(lse_rows - diag) + T.sum(lse_cols - diag)) / (2.0 * T.cast(N, T.f32))


KERNEL = clip_contrastive_loss


def inputs(shape, rng):
    N, D = shape["N"], shape["D"]
    a, b = rng.standard_normal((N, D)), rng.standard_normal((N, D))
    b = a + 0.5 * b                      # matching pairs are similar
    unit = lambda x: (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    return dict(img=unit(a), txt=unit(b), scale=14.285714)


def reference(img, txt, scale):
    s = np.float64(np.float32(scale))
    logits = img.astype(np.float64) @ txt.astype(np.float64).T * s
    def lse(z, ax):
        m = z.max(ax, keepdims=True)
        return (m + np.log(np.exp(z - m).sum(ax, keepdims=True))).squeeze(ax)
    d = np.diag(logits)
    return dict(loss=np.array([((lse(logits, 1) - d).sum() + (lse(logits, 0) - d).sum()) / (2 * len(d))]))


def peer(img, txt, scale):
    import torch
    import torch.nn.functional as F
    logits = scale * img.float() @ txt.float().T
    labels = torch.arange(img.shape[0], device=img.device)
    return dict(loss=((F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2).reshape(1))


def OPS(shape):
    N, D = shape["N"], shape["D"]
    return 2 * N * N * D, 4 * N * D


TEST_SHAPES = [dict(N=1, D=1), dict(N=5, D=7), dict(N=37, D=64)]
BENCH_SHAPE = dict(N=16384, D=768)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
