"""Scatter-add of rows by index (index_add): out[index[i], :] += src[i, :] for every row i of src
(1M rows x 256 into 65536 rows; indices repeat)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def index_add(src: T.In[T.f32, ("N", "D")],
              index: T.In[T.i32, ("N",), T.Range(0, "M")],
              out: T.InOut[T.f32, ("M", "D")]):
    N, D = src.shape
    rows = T.domain(0, N)
    dims = T.domain(0, D)
    dst = T.index_relation(index, rows)
    T.scatter_reduce(out, (dst, dims), src[rows, dims], combine="add")


KERNEL = index_add
CONSTEXPRS = {}


def inputs(shape, rng):
    N, D, M = shape["N"], shape["D"], shape["M"]
    return {
        "src": rng.standard_normal((N, D)).astype(np.float32),
        "index": rng.integers(0, M, size=N).astype(np.int32),
        "out": rng.standard_normal((M, D)).astype(np.float32),
    }


def reference(src, index, out):
    acc = out.astype(np.float64).copy()
    np.add.at(acc, index, src.astype(np.float64))
    return {"out": acc.astype(np.float32)}


def peer(src, index, out):
    out.index_add_(0, index, src)
    return {"out": out}


TEST_SHAPES = [dict(N=1, D=1, M=1), dict(N=211, D=13, M=7), dict(N=1031, D=33, M=97),
               dict(N=127, D=256, M=131)]
BENCH_SHAPE = dict(N=1 << 20, D=256, M=65536)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
BENCH_TOLERANCE = dict(rtol=1e-4, atol=1e-4)   # the order of the additions is unspecified
PEER = "torch index_add_"


def OPS(shape):
    N, D, M = shape["N"], shape["D"], shape["M"]
    return N * D, N * D * 4 + N * 4 + 2 * M * D * 4
