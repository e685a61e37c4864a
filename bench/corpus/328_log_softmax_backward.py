"""Log-softmax backward (autograd's LogSoftmaxBackward, e.g. under a language model's NLL loss): given the
forward's output y = log_softmax(x) over the rows of y f32 [M, V] and the upstream gradient dy f32 [M, V],
dx[m, v] = dy[m, v] - exp(y[m, v]) * sum over v' of dy[m, v'], f32 [M, V]. M8192 V32000.
Peer: torch.compile of torch._log_softmax_backward_data (what autograd runs)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def log_softmax_backward(y: T.In[T.f32, ("M", "V")], dy: T.In[T.f32, ("M", "V")], dx: T.Out[T.f32, ("M", "V")]):
    M, V = y.shape
    vocab = T.domain(0, V)
    for m in T.parallel(T.domain(0, M)):
        g = dy[m, vocab]
        dx[m, vocab] = g - T.exp(y[m, vocab]) * T.sum(g)


KERNEL = log_softmax_backward


def inputs(shape, rng):
    M, V = shape["M"], shape["V"]
    x = rng.standard_normal((M, V)) * 2.0
    y = x - x.max(1, keepdims=True)
    y = y - np.log(np.exp(y).sum(1, keepdims=True))
    return dict(y=y.astype(np.float32), dy=(rng.standard_normal((M, V)) / np.sqrt(V)).astype(np.float32))


def reference(y, dy):
    d = dy.astype(np.float64)
    return dict(dx=d - np.exp(y.astype(np.float64)) * d.sum(1, keepdims=True))


def peer(y, dy):
    import torch
    return dict(dx=torch._log_softmax_backward_data(dy, y, 1, y.dtype))


def OPS(shape):
    n = shape["M"] * shape["V"]
    return 4 * n, 12 * n


TEST_SHAPES = [dict(M=1, V=1), dict(M=3, V=37), dict(M=5, V=1031),
               dict(M=0, V=37)]
BENCH_SHAPE = dict(M=8192, V=32000)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"
