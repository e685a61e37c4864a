"""Per-tensor and global L2 norms of gradients held in one flat buffer (apex's multi_tensor_l2norm with
per_tensor=True, as LAMB / LARS trust ratios and clip_grad_norm_ over a flattened FSDP / ZeRO shard use
them): grads f32 [NE] holds P parameter gradients back to back, tensor p owning elements offsets[p] ..
offsets[p + 1] - 1 (offsets i64 [P + 1], offsets[0] = 0, offsets[P] = NE; sizes from 1 to millions, a few
empty); norms[p] = sqrt(sum of the tensor's squares) (f32 [P]) and total[0] = sqrt(sum of every square).
NE = 2^27, P = 4096 (a sharded 7B model's parameters). Peer: torch._foreach_norm over the views (what
clip_grad_norm_(foreach=True) runs), then the norm of the norms."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def multi_tensor_l2norm(grads: T.In[T.f32, ("NE",)], offsets: T.In[T.i64, ("P1",)],
                        norms: T.Out[T.f32, ("P",)], total: T.Out[T.f32, (1,)]):
    NE = grads.shape[0]
    P = norms.shape[0]
    elems = T.domain(0, NE)
    for p in T.parallel(T.domain(0, P)):
        g = grads[elems[offsets[p]:offsets[p + 1]]]
        norms[p] = T.sqrt(T.sum(g * g))
    a = grads[elems]
    total[0] = T.sqrt(T.sum(a * a))


KERNEL = multi_tensor_l2norm


def inputs(shape, rng):
    NE, P = shape["NE"], shape["P"]
    assert shape["P1"] == P + 1
    cuts = np.sort(rng.integers(0, NE + 1, max(P - 1, 0)))
    if P > 3:
        cuts[1] = cuts[0]                              # an empty tensor
    offsets = np.concatenate([[0], cuts, [NE]]).astype(np.int64)
    return dict(grads=(rng.standard_normal(NE) * 1e-2).astype(np.float32), offsets=offsets)


def reference(grads, offsets):
    g = grads.astype(np.float64)
    norms = np.array([np.sqrt((g[offsets[p]:offsets[p + 1]] ** 2).sum()) for p in range(len(offsets) - 1)])
    return dict(norms=norms, total=np.array([np.sqrt((g * g).sum())]))


def peer(grads, offsets):
    import torch
    sizes = (offsets[1:] - offsets[:-1]).tolist()
    norms = torch.stack(torch._foreach_norm(list(torch.split(grads, sizes))))
    return dict(norms=norms, total=torch.linalg.vector_norm(norms).reshape(1))


def OPS(shape):
    return 2 * shape["NE"], 4 * shape["NE"] + 12 * shape["P"]


TEST_SHAPES = [dict(NE=1, P=1, P1=2), dict(NE=37, P=5, P1=6), dict(NE=4099, P=13, P1=14)]
BENCH_SHAPE = dict(NE=2 ** 27, P=4096, P1=4097)
TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "torch"
