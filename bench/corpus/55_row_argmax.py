"""Per-row argmax of f32 logits X [M, N]: idx[m] = the first n where X[m, n] is the row maximum (i64),
val[m] = that maximum (f32). 16384x32000 (a vocabulary). Peer: torch.max(dim=1)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def row_argmax(x: T.In[T.f32, ("M", "N")], val: T.Out[T.f32, ("M",)], idx: T.Out[T.i64, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        v, i = T.argmax(x[m, cols], tie="lowest")
        val[m] = v
        idx[m] = T.cast(i, T.i64)


KERNEL = row_argmax
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    x = rng.standard_normal((M, N)).astype(np.float32)
    x = np.round(x * 2.0) / 2.0          # coarse values: rows whose maximum occurs more than once
    return dict(x=x.astype(np.float32))


def reference(x):
    return dict(val=x.max(axis=1), idx=np.argmax(x, axis=1).astype(np.int64))


def peer(x):
    v, i = x.max(dim=1)
    return dict(val=v, idx=i)


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031), dict(M=2, N=32003)]
BENCH_SHAPE = dict(M=16384, N=32000)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.max(dim=1)"


def OPS(shape):
    M, N = shape["M"], shape["N"]
    return M * N, 4 * M * N + 12 * M
