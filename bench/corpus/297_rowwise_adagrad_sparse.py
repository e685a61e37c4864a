"""Sparse row-wise Adagrad update of an embedding table (FBGEMM's table-batched embedding backward with
OptimType.EXACT_ROWWISE_ADAGRAD, as TorchRec / DLRM training runs it, after the lookups' gradients are
summed per unique row): weights f32 [V, D] and the per-row state momentum f32 [V] are updated in place for
the U distinct rows ids i64 [U] with their summed gradients grads f32 [U, D]: momentum[r] += mean over the
row of g^2, then weights[r, :] -= lr * g / (sqrt(momentum[r]) + eps); rows not in ids are untouched.
lr, eps runtime f32. V 4,000,000, D 128, U 262144. Peer: torch (index_add_ / index gather and put)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rowwise_adagrad(weights: T.InOut[T.f32, ("V", "D")], momentum: T.InOut[T.f32, ("V",)],
                    ids: T.In[T.i64, ("U",)], grads: T.In[T.f32, ("U", "D")], lr: T.f32, eps: T.f32):
    V, D = weights.shape
    U = ids.shape[0]
    dims = T.domain(0, D)
    for u in T.parallel(T.domain(0, U)):
        r = ids[u]
        g = grads[u, dims]
        m = momentum[r] + T.sum(g * g) / T.cast(D, T.f32)
        momentum[r] = m
        weights[r, dims] = weights[r, dims] - lr * g / (T.sqrt(m) + eps)


KERNEL = rowwise_adagrad


def inputs(shape, rng):
    V, D, U = shape["V"], shape["D"], shape["U"]
    return dict(weights=rng.standard_normal((V, D)).astype(np.float32),
                momentum=rng.random(V).astype(np.float32),
                ids=rng.choice(V, size=U, replace=False).astype(np.int64),
                grads=rng.standard_normal((U, D)).astype(np.float32), lr=0.05, eps=1e-8)


def reference(weights, momentum, ids, grads, lr, eps):
    w, m = weights.astype(np.float64), momentum.astype(np.float64)
    g = grads.astype(np.float64)
    m[ids] += (g * g).mean(axis=1)
    w[ids] -= lr * g / (np.sqrt(m[ids]) + eps)[:, None]
    return dict(weights=w, momentum=m)


def peer(weights, momentum, ids, grads, lr, eps):
    momentum.index_add_(0, ids, grads.pow(2).mean(dim=1))
    weights.index_add_(0, ids, -lr * grads / (momentum[ids].sqrt() + eps)[:, None])
    return dict(weights=weights, momentum=momentum)


def OPS(shape):
    U, D = shape["U"], shape["D"]
    return 6 * U * D, 4 * U * (3 * D + 2) + 8 * U


TEST_SHAPES = [dict(V=1, D=1, U=1), dict(V=41, D=7, U=13), dict(V=1, D=1, U=0), dict(V=1031, D=37, U=97)]
BENCH_SHAPE = dict(V=4000000, D=128, U=262144)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch"
