"""GNN mean aggregation over a CSR graph: out[v] = mean of X[u] over the neighbors u of v (0 for a node
with no neighbors), with indptr [Nn+1] (i32; node v's neighbors are indices[indptr[v]:indptr[v+1]]),
indices [E] (i32 node ids), X [Nn, F] f32, out [Nn, F] f32. 1M nodes, ~16 neighbors each (uneven
degrees), F=128. Peer: torch index_add_ / segment reduce.
Second spelling: an ordered loop over the neighbors carrying an [F] accumulator."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gnn_mean_aggregation_b(indptr: T.In[T.i32, ("N1",)],
                           indices: T.In[T.i32, ("E",), T.Range(0, "Nn")],
                           x: T.In[T.f32, ("Nn", "F")],
                           out: T.Out[T.f32, ("Nn", "F")]):
    Nn, F = x.shape                                # indptr has Nn + 1 entries
    edges, feats = T.domain(0, indices.shape[0]), T.domain(0, F)
    for v in T.parallel(T.domain(0, Nn)):
        lo, hi = indptr[v], indptr[v + 1]
        acc = T.zeros(feats)                       # [F] f32, carried over the neighbors
        for e in edges[lo:hi]:
            acc = acc + x[indices[e], feats]
        out[v, feats] = acc / T.maximum(T.cast(hi - lo, T.f32), 1.0)


KERNEL = gnn_mean_aggregation_b
CONSTEXPRS = {}


def inputs(shape, rng):
    Nn, E = shape["Nn"], shape["E"]
    assert shape["N1"] == Nn + 1
    # uneven degrees: a Dirichlet split of E edges, so some nodes have none and a few have many
    deg = rng.multinomial(E, rng.dirichlet(np.full(Nn, 0.5))) if Nn > 1 else np.array([E])
    if Nn > 2:
        deg[-1] += deg[0]                           # the first node is isolated
        deg[0] = 0
    indptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int32)
    return dict(indptr=indptr,
                indices=rng.integers(0, Nn, size=E).astype(np.int32),
                x=rng.standard_normal((Nn, shape["F"])).astype(np.float32))


def reference(indptr, indices, x):
    Nn = indptr.shape[0] - 1
    deg = np.diff(indptr)
    dst = np.repeat(np.arange(Nn), deg)
    s = np.zeros((Nn, x.shape[1]))
    np.add.at(s, dst, x.astype(np.float64)[indices])
    return dict(out=s / np.maximum(deg, 1)[:, None])


def peer(indptr, indices, x):
    import torch
    Nn = x.shape[0]
    deg = indptr[1:] - indptr[:-1]
    dst = torch.repeat_interleave(torch.arange(Nn, device=x.device), deg.long(), output_size=indices.numel())
    s = torch.zeros_like(x).index_add_(0, dst, x[indices.long()])
    return dict(out=s / deg.clamp(min=1).to(x.dtype)[:, None])


def _shape(Nn, E, F):
    return dict(Nn=Nn, N1=Nn + 1, E=E, F=F)


TEST_SHAPES = [_shape(1, 1, 1), _shape(7, 29, 3), _shape(97, 1031, 13), _shape(61, 17, 128),
               _shape(5, 641, 130)]
BENCH_SHAPE = _shape(1 << 20, 16 << 20, 128)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch index_add_ (repeat_interleave of degrees) under torch.compile"


def OPS(shape):
    Nn, E, F = shape["Nn"], shape["E"], shape["F"]
    return E * F + Nn * F, E * F * 4 + E * 4 + (Nn + 1) * 4 + Nn * F * 4
