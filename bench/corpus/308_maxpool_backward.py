"""Max-pool backward through the saved argmax indices (torch's max_pool2d_with_indices_backward, as
autograd runs it for ResNet's 3 x 3, stride 2, padding 1 stem pool): the forward saved, for each output
element of each (n, c) plane, the flat position h * W + w of its maximum in the H x W input plane
(indices i64 [N, C, OH, OW]); the pooling windows overlap, so one input element can be the maximum of up
to four windows. grad_in f32 [N, C, H, W] is zero except where some window's maximum lies, which gets the
sum of those windows' grad_out (f32 [N, C, OH, OW]). N32 C64 H112 W112 (OH = OW = 56). Peer: the aten op
autograd calls."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def maxpool_backward(grad_out: T.In[T.f32, ("N", "C", "OH", "OW")], indices: T.In[T.i64, ("N", "C", "OH", "OW")],
                     grad_in: T.InOut[T.f32, ("N", "C", "H", "W")]):
    N, C, OH, OW = grad_out.shape
    W = grad_in.shape[3]
    ns, cs, ohs, ows = T.domain(0, N), T.domain(0, C), T.domain(0, OH), T.domain(0, OW)
    grad_in[:, :, :, :] = 0.0
    idx = indices[ns, cs, ohs, ows]
    Wi = T.cast(W, T.i64)
    T.scatter_reduce(grad_in, (ns, cs, idx // Wi, idx % Wi), grad_out[ns, cs, ohs, ows], combine="add")


KERNEL = maxpool_backward


def _forward_indices(x):
    N, C, H, W = x.shape
    OH, OW = (H - 1) // 2 + 1, (W - 1) // 2 + 1
    xp = np.full((N, C, H + 2, W + 2), -np.inf, dtype=np.float64)
    xp[:, :, 1:-1, 1:-1] = x
    best = np.full((N, C, OH, OW), -np.inf)
    at = np.zeros((N, C, OH, OW), dtype=np.int64)
    for i in range(3):
        for j in range(3):
            v = xp[:, :, i:i + 2 * OH:2, j:j + 2 * OW:2]
            h = np.arange(OH)[:, None] * 2 + i - 1
            w = np.arange(OW)[None, :] * 2 + j - 1
            take = v > best
            best = np.where(take, v, best)
            at = np.where(take, h * W + w, at)
    return at


def inputs(shape, rng):
    N, C, H, W, OH, OW = (shape[k] for k in ("N", "C", "H", "W", "OH", "OW"))
    assert OH == (H - 1) // 2 + 1 and OW == (W - 1) // 2 + 1
    x = rng.standard_normal((N, C, H, W))
    return dict(grad_out=rng.standard_normal((N, C, OH, OW)).astype(np.float32), indices=_forward_indices(x),
                grad_in=rng.standard_normal((N, C, H, W)).astype(np.float32))   # overwritten


def reference(grad_out, indices, grad_in):
    N, C, H, W = grad_in.shape
    g = np.zeros((N, C, H * W))
    n, c = np.meshgrid(np.arange(N), np.arange(C), indexing="ij")
    for i in range(grad_out.shape[2]):
        for j in range(grad_out.shape[3]):
            np.add.at(g, (n, c, indices[:, :, i, j]), grad_out[:, :, i, j])
    return dict(grad_in=g.reshape(N, C, H, W))


def peer(grad_out, indices, grad_in):
    import torch
    g = torch.ops.aten.max_pool2d_with_indices_backward(grad_out, grad_in, [3, 3], [2, 2], [1, 1], [1, 1],
                                                        False, indices)
    return dict(grad_in=g)


def OPS(shape):
    n_out = shape["N"] * shape["C"] * shape["OH"] * shape["OW"]
    return n_out, 12 * n_out + 8 * shape["N"] * shape["C"] * shape["H"] * shape["W"]


TEST_SHAPES = [dict(N=1, C=1, H=1, W=1, OH=1, OW=1), dict(N=2, C=3, H=5, W=7, OH=3, OW=4),
               dict(N=1, C=2, H=13, W=31, OH=7, OW=16)]
BENCH_SHAPE = dict(N=32, C=64, H=112, W=112, OH=56, OW=56)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch"
