"""Scatter-max of rows: out[s, :] = max over i with idx[i] == s of x[i, :] (rows never hit stay -inf),
x [N, D] f32, idx [N] int32 random in [0, S). N=1,000,000, D=64, S=4096. Peer: torch scatter_reduce
("amax", include_self=False) on an -inf-initialized output."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def scatter_max_rows(x: T.In[T.f32, ("N", "D")],
                     idx: T.In[T.i32, ("N",), T.Range(0, "S")],
                     out: T.InOut[T.f32, ("S", "D")]):       # the caller fills it with -inf, as for torch
    N, D = x.shape
    rows, dims = T.domain(0, N), T.domain(0, D)
    dst = T.index_relation(idx, rows)
    T.scatter_reduce(out, (dst, dims), x[rows, dims], combine="max")


KERNEL = scatter_max_rows
CONSTEXPRS = {}


def inputs(shape, rng):
    N, D, S = shape["N"], shape["D"], shape["S"]
    return {
        "x": rng.standard_normal((N, D)).astype(np.float32),
        "idx": rng.integers(0, S, size=N).astype(np.int32),
        "out": np.full((S, D), -np.inf, dtype=np.float32),
    }


def reference(x, idx, out):
    acc = np.full(out.shape, -np.inf)
    for s in range(out.shape[0]):
        hit = x[idx == s]
        if len(hit):
            acc[s] = hit.astype(np.float64).max(axis=0)
    return {"out": acc}


def peer(x, idx, out):
    out.scatter_reduce_(0, idx.long()[:, None].expand(-1, x.shape[1]), x, reduce="amax",
                        include_self=False)
    return {"out": out}


TEST_SHAPES = [dict(N=1, D=1, S=1), dict(N=211, D=13, S=7), dict(N=31, D=5, S=97),
               dict(N=1031, D=64, S=131)]
BENCH_SHAPE = dict(N=1000000, D=64, S=4096)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch scatter_reduce amax"


def OPS(shape):
    N, D, S = shape["N"], shape["D"], shape["S"]
    return N * D, N * D * 4 + N * 4 + 2 * S * D * 4
