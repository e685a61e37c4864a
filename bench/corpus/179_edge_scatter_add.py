"""GNN message passing over unsorted edges: out[dst[e], :] += w[e] * x[src[e], :] for every edge e, with
x [Nn, D] f32, src/dst [E] int32 node ids, w [E] f32 edge weights; out [Nn, D] f32 starts at zero (the
kernel zeroes it). Nn=100000 E=1000000 D=64. Peer: torch.compile (zeros + index_add_)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def edge_scatter_add(x: T.In[T.f32, ("Nn", "D")],
                     src: T.In[T.i32, ("E",), T.Range(0, "Nn")],
                     dst: T.In[T.i32, ("E",), T.Range(0, "Nn")],
                     w: T.In[T.f32, ("E",)],
                     out: T.InOut[T.f32, ("Nn", "D")]):
    Nn, D = x.shape
    E = src.shape[0]
    nodes, edges, dims = T.domain(0, Nn), T.domain(0, E), T.domain(0, D)
    out[nodes, dims] = 0.0
    msg = w[edges] * x[src[edges], dims]                       # [E, D]
    T.scatter_reduce(out, (dst[edges], dims), msg, combine="add")


KERNEL = edge_scatter_add
CONSTEXPRS = {}


def inputs(shape, rng):
    Nn, E, D = shape["Nn"], shape["E"], shape["D"]
    return dict(x=rng.standard_normal((Nn, D)).astype(np.float32),
                src=rng.integers(0, Nn, size=E).astype(np.int32),
                dst=rng.integers(0, Nn, size=E).astype(np.int32),
                w=rng.standard_normal(E).astype(np.float32),
                out=rng.standard_normal((Nn, D)).astype(np.float32))   # garbage: the kernel zeroes it


def reference(x, src, dst, w, out):
    acc = np.zeros(x.shape)
    np.add.at(acc, dst.astype(np.int64), w.astype(np.float64)[:, None] * x.astype(np.float64)[src])
    return dict(out=acc)


def peer(x, src, dst, w, out):
    import torch
    acc = torch.zeros_like(x).index_add_(0, dst.long(), w[:, None] * x[src.long()])
    return dict(out=acc)


TEST_SHAPES = [dict(Nn=1, E=1, D=1), dict(Nn=7, E=29, D=3), dict(Nn=97, E=1031, D=13),
               dict(Nn=61, E=17, D=64), dict(Nn=5, E=641, D=130)]
BENCH_SHAPE = dict(Nn=100000, E=1000000, D=64)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    Nn, E, D = shape["Nn"], shape["E"], shape["D"]
    return 2 * E * D, E * D * 4 * 2 + E * 12 + Nn * D * 4
