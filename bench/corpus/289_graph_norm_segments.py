"""GraphNorm over a batch of graphs (Cai et al. 2021, PyTorch Geometric's torch_geometric.nn.GraphNorm):
node features x f32 [N, F] of G graphs stored back to back, graph g owning the nodes ptr[g] .. ptr[g+1]-1
(PyG's batch.ptr, i64 [G + 1], graphs of different sizes, possibly empty); per graph and feature,
mean = the mean of x over the graph's nodes, c = x - mean_scale * mean, var = the mean of c^2 over the
graph's nodes, and out = weight * c / sqrt(var + eps) + bias (weight, bias, mean_scale f32 [F], eps a
runtime f32). N = 1,048,576 nodes in G = 4096 graphs (molecules / point-cloud patches), F = 256.
Peer: torch_geometric GraphNorm (scatter means) under torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def graph_norm(x: T.In[T.f32, ("N", "F")], ptr: T.In[T.i64, ("G1",)], weight: T.In[T.f32, ("F",)],
               bias: T.In[T.f32, ("F",)], mean_scale: T.In[T.f32, ("F",)], out: T.Out[T.f32, ("N", "F")],
               num_graphs: T.i32, eps: T.f32):
    N, F = x.shape
    nodes, feats = T.domain(0, N), T.domain(0, F)
    for g in T.parallel(T.domain(0, num_graphs)):
        lo, hi = ptr[g], ptr[g + 1]
        mine = nodes[lo:hi]
        cnt = T.maximum(T.cast(hi - lo, T.f32), 1.0)
        xs = x[mine, feats]
        mean = T.sum(xs, axis=0) / cnt
        c = xs - mean_scale[feats] * mean
        var = T.sum(c * c, axis=0) / cnt
        out[mine, feats] = weight[feats] * c * T.rsqrt(var + eps) + bias[feats]


KERNEL = graph_norm


def _sizes(rng, n, g):
    if g == 1:
        return np.array([n])
    cuts = np.sort(rng.integers(0, n + 1, size=g - 1))
    return np.diff(np.concatenate([[0], cuts, [n]]))


def inputs(shape, rng):
    N, F, G = shape["N"], shape["F"], shape["G1"] - 1
    sizes = _sizes(rng, N, G)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return dict(x=(rng.standard_normal((N, F)) * 2.0 + 0.5).astype(np.float32), ptr=ptr,
                weight=rng.standard_normal(F).astype(np.float32), bias=rng.standard_normal(F).astype(np.float32),
                mean_scale=rng.random(F).astype(np.float32), num_graphs=G, eps=1e-5)


def reference(x, ptr, weight, bias, mean_scale, num_graphs, eps):
    out = np.zeros(x.shape)
    for g in range(num_graphs):
        xs = x[ptr[g]:ptr[g + 1]].astype(np.float64)
        if len(xs) == 0:
            continue
        c = xs - mean_scale * xs.mean(axis=0)
        out[ptr[g]:ptr[g + 1]] = weight * c / np.sqrt((c * c).mean(axis=0) + eps) + bias
    return dict(out=out)


def peer(x, ptr, weight, bias, mean_scale, num_graphs, eps):
    import torch
    sizes = ptr[1:] - ptr[:-1]
    batch = torch.repeat_interleave(torch.arange(num_graphs, device=x.device), sizes)
    cnt = sizes.clamp(min=1).to(x.dtype)[:, None]
    mean = torch.zeros(num_graphs, x.shape[1], device=x.device).index_add_(0, batch, x) / cnt
    c = x - mean[batch] * mean_scale
    var = torch.zeros(num_graphs, x.shape[1], device=x.device).index_add_(0, batch, c * c) / cnt
    return dict(out=weight * c / (var + eps).sqrt()[batch] + bias)


def OPS(shape):
    N, F = shape["N"], shape["F"]
    return 8 * N * F, 8 * N * F


TEST_SHAPES = [dict(N=1, F=1, G1=2), dict(N=13, F=3, G1=4), dict(N=0, F=3, G1=3), dict(N=211, F=37, G1=12)]
BENCH_SHAPE = dict(N=1048576, F=256, G1=4097)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
