"""SigLIP's pairwise sigmoid loss (Zhai et al. 2023, big_vision / open_clip SigLipLoss on one device):
for L2-normalized image and text embeddings img, txt bf16 [N, D] and the learned temperature and bias
(runtime f32 scalars scale, bias), logits[i, j] = scale * <img[i], txt[j]> + bias (f32 accumulation),
z[i, j] = 1 on the diagonal (matching pairs) and -1 elsewhere; loss[0] = -sum_{i, j} log_sigmoid(z[i, j]
* logits[i, j]) / N (f32 [1]). N8192 D1152. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def siglip_sigmoid_loss(img: T.In[T.bf16, ("N", "D")], txt: T.In[T.bf16, ("N", "D")], loss: T.Out[T.f32, (1,)],
                        scale: T.f32, bias: T.f32):
    N, D = img.shape
    rows, dims = T.domain(0, N), T.domain(0, D)
    logits = scale * T.matmul(img[rows, dims], txt[rows, dims], transpose_rhs=True, acc_dtype=T.f32) + bias
    i = T.broadcast(T.indices(rows), over=(rows, rows), dims=[0])
    j = T.broadcast(T.indices(rows), over=(rows, rows), dims=[1])
    u = T.where(i == j, logits, -logits)
    # -log_sigmoid(u) = log(1 + exp(-u)), computed stably
    loss[0] = T.sum(T.log1p(T.exp(-T.abs(u))) - T.minimum(u, 0.0)) / T.cast(N, T.f32)


KERNEL = siglip_sigmoid_loss


def _unit_rows(a):
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def inputs(shape, rng):
    s = (shape["N"], shape["D"])
    return dict(img=_unit_rows(rng.standard_normal(s)).astype(np.float32),
                txt=_unit_rows(rng.standard_normal(s)).astype(np.float32), scale=10.0, bias=-10.0)


def reference(img, txt, scale, bias):
    logits = scale * (img.astype(np.float64) @ txt.astype(np.float64).T) + bias
    z = 2.0 * np.eye(img.shape[0]) - 1.0
    u = z * logits
    return dict(loss=np.array([np.logaddexp(0.0, -u).sum() / img.shape[0]]))


def peer(img, txt, scale, bias):
    import torch
    import torch.nn.functional as F
    logits = scale * (img @ txt.T).float() + bias
    z = 2.0 * torch.eye(img.shape[0], device=img.device) - 1.0
    return dict(loss=(-F.logsigmoid(z * logits).sum() / img.shape[0]).reshape(1))


def OPS(shape):
    N, D = shape["N"], shape["D"]
    return 2 * N * N * D + 6 * N * N, 4 * N * D


TEST_SHAPES = [dict(N=1, D=1), dict(N=5, D=17), dict(N=37, D=67)]
BENCH_SHAPE = dict(N=8192, D=1152)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
