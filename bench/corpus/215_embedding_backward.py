"""Embedding backward (the weight gradient of an embedding lookup): dW [V, D] f32 (an InOut view, scatter-add's destination) starts at zero; for
every token t, dW[ids[t], :] += dy[t, :] (dy [T, D] bf16, ids [T] int32, with repeats). V=32000 D=4096
T=16384. Peer: torch.compile of zeros + index_add_ (what embedding_dense_backward does)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def embedding_backward(dy: T.In[T.bf16, ("T", "D")], ids: T.In[T.i32, ("T",), T.Range(0, "V")],
                       dW: T.InOut[T.f32, ("V", "D")]):
    Tn, D = dy.shape
    V = dW.shape[0]
    toks, dims = T.domain(0, Tn), T.domain(0, D)
    dW[T.domain(0, V), dims] = 0.0
    T.scatter_reduce(dW, (ids[toks], dims), T.cast(dy[toks, dims], T.f32), combine="add")


KERNEL = embedding_backward
CONSTEXPRS = {}


def inputs(shape, rng):
    Tn, D, V = shape["T"], shape["D"], shape["V"]
    # a Zipf-like id distribution: a few ids repeat many times, most rows of dW stay zero
    ids = ((rng.zipf(1.3, size=Tn) - 1) % V).astype(np.int32)
    # dW is zeroed by the kernel: start it with garbage so a missed zeroing shows
    return dict(dy=rng.standard_normal((Tn, D)).astype(np.float32), ids=ids,
                dW=rng.standard_normal((V, D)).astype(np.float32))


def reference(dy, ids, dW):
    out = np.zeros(dW.shape)
    np.add.at(out, ids.astype(np.int64), dy.astype(np.float64))
    return dict(dW=out)


def peer(dy, ids, dW):
    import torch
    return dict(dW=torch.zeros_like(dW).index_add_(0, ids.long(), dy.float()))


TEST_SHAPES = [dict(T=1, D=1, V=1), dict(T=29, D=13, V=7), dict(T=257, D=130, V=31), dict(T=67, D=1031, V=5)]
BENCH_SHAPE = dict(T=16384, D=4096, V=32000)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    Tn, D, V = shape["T"], shape["D"], shape["V"]
    return Tn * D, 2 * Tn * D + 4 * Tn + 4 * V * D * 2
