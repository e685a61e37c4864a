"""Dynamic voxelization's feature mean (mmdet3d's DynamicScatter with reduce "mean", as PointPillars /
CenterPoint / SECOND run it on lidar point clouds): each point p has features feats f32 [NP, C] and a
voxel id voxel_id i32 [NP] (the flat index of its voxel in the V-voxel grid, already computed from its
coordinates; -1 for a point outside the range, which is dropped). counts[v] is the number of points of
voxel v (i32 [V]) and mean[v, :] the mean of their features (f32 [V, C]; 0 for an empty voxel).
NP 262144 points (two 64-beam sweeps), V 262144 (a 512 x 512 pillar grid), C 64. Peer: torch (zeros,
index_add_ of the kept points' features and of ones, then the division clamped at one)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def voxel_scatter_mean(feats: T.In[T.f32, ("NP", "C")], voxel_id: T.In[T.i32, ("NP",)],
                       sums: T.InOut[T.f32, ("V", "C")], counts: T.InOut[T.i32, ("V",)],
                       mean: T.Out[T.f32, ("V", "C")]):
    NP, C = feats.shape
    V = sums.shape[0]
    chans, voxels = T.domain(0, C), T.domain(0, V)
    sums[voxels, chans] = 0.0
    counts[voxels] = 0
    for p in T.parallel(T.domain(0, NP)):
        v = voxel_id[p]
        if v >= 0:
            T.scatter_reduce(sums, (v, chans), feats[p, chans], combine="add")
            T.atomic_add(counts, (v,), 1)
    for v in T.parallel(voxels):
        n = T.cast(T.maximum(counts[v], 1), T.f32)
        mean[v, chans] = sums[v, chans] / n


KERNEL = voxel_scatter_mean


def inputs(shape, rng):
    NP, C, V = shape["NP"], shape["C"], shape["V"]
    vid = rng.integers(0, V, NP).astype(np.int32)
    vid[rng.random(NP) < 0.1] = -1
    if NP > 4 and V > 1:
        vid[:4] = 0                                     # a crowded voxel
    return dict(feats=rng.standard_normal((NP, C)).astype(np.float32), voxel_id=vid,
                sums=rng.standard_normal((V, C)).astype(np.float32),          # overwritten
                counts=rng.integers(0, 9, V).astype(np.int32))


def reference(feats, voxel_id, sums, counts):
    V, C = sums.shape
    keep = voxel_id >= 0
    s = np.zeros((V, C))
    np.add.at(s, voxel_id[keep], feats[keep].astype(np.float64))
    n = np.bincount(voxel_id[keep], minlength=V).astype(np.int32)
    return dict(sums=s, counts=n, mean=s / np.maximum(n, 1)[:, None])


def peer(feats, voxel_id, sums, counts):
    import torch
    V, C = sums.shape
    keep = voxel_id >= 0
    idx = voxel_id[keep].long()
    s = torch.zeros_like(sums).index_add_(0, idx, feats[keep])
    n = torch.zeros_like(counts).index_add_(0, idx, torch.ones_like(idx, dtype=counts.dtype))
    return dict(sums=s, counts=n, mean=s / n.clamp(min=1)[:, None].float())


def OPS(shape):
    NP, C, V = shape["NP"], shape["C"], shape["V"]
    return NP * C + V * C, 4 * (NP * C + NP) + 12 * V * C


TEST_SHAPES = [dict(NP=1, C=1, V=1), dict(NP=37, C=3, V=11), dict(NP=1031, C=5, V=97)]
BENCH_SHAPE = dict(NP=262144, C=64, V=262144)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch"
# The docs call a relaxed T.atomic_rmw "the same write as a T.scatter_reduce with that combine, at scalar
# or domain coordinates", so a scatter-add of one point's row at (v, chans) is written as T.scatter_reduce; the
# frontend emits it as that atomic (313_voxel_scatter_mean_b spells it T.atomic_rmw).
