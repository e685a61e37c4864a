"""Row-wise top-1 with its value and index plus the row's softmax probability of it (argmax, max, exp(0)/sum exp(x- max)): x f32 [M, N]; outputs idx int64 [M], val f32 [M], prob f32 [M]. M32768 N1000. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def top1_softmax_prob(x: T.In[T.f32, ("M", "N")], idx: T.Out[T.i64, ("M",)],
                      val: T.Out[T.f32, ("M",)], prob: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        best, at = T.argmax(row)
        idx[m] = T.cast(at, T.i64)
        val[m] = best
        prob[m] = 1.0 / T.sum(T.exp(row - best))


KERNEL = top1_softmax_prob


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=(2.0 * rng.standard_normal((M, N))).astype(np.float32))


def reference(x):
    xf = x.astype(np.float64)
    mx = xf.max(axis=1)
    return {"idx": np.argmax(x, axis=1).astype(np.int64), "val": x.max(axis=1),
            "prob": 1.0 / np.exp(xf - mx[:, None]).sum(axis=1)}


def peer(x):
    import torch
    val, idx = x.max(dim=1)
    prob = 1.0 / torch.exp(x - val[:, None]).sum(dim=1)
    return {"idx": idx, "val": val, "prob": prob}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=32768, N=1000)
TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "torch.compile"
