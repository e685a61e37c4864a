"""Block-sparse (BSR) times dense: A has 64x64 nonzero blocks given by crow [MB+1] and col [NNZB] (int32) and values [NNZB, 64, 64] f16; out = A @ B, B f16 [K, N], out f16 [M, N] (f32 accumulate). M=K=8192, N=1024, ~10% of blocks nonzero. Peer: torch.sparse bsr matmul or a dense matmul of the densified A (document which)."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def bsr_matmul(crow: T.In[T.i32, ("MB1",)], col: T.In[T.i32, ("NNZB",)], values: T.In[T.f16, ("NNZB", 64, 64)],
               b: T.In[T.f16, ("K", "N")], out: T.Out[T.f16, ("M", "N")]):
    MB = crow.shape[0] - 1
    M, N = out.shape
    blocks = T.domain(0, values.shape[0])
    blk = T.domain(0, 64)
    rows, cols = T.domain(0, M), T.domain(0, N)
    for mb in T.parallel(T.domain(0, MB)):
        acc = T.zeros((blk, cols), T.f32)
        for e in blocks[crow[mb]:crow[mb + 1]]:
            kb = T.cast(col[e], T.index) * 64 + T.indices(blk)          # the block's rows of B
            acc = acc + T.matmul(values[e, blk, blk], b[kb, cols], acc_dtype=T.f32)
        out[rows[mb * 64:mb * 64 + 64], cols] = T.cast(acc, T.f16)


KERNEL = bsr_matmul


def inputs(shape, rng):
    M, K, N, nnzb = shape["M"], shape["K"], shape["N"], shape["NNZB"]
    MB, KB = M // 64, K // 64
    assert shape["MB1"] == MB + 1 and nnzb <= MB * KB
    flat = np.sort(rng.choice(MB * KB, size=nnzb, replace=False))
    rb, cb = flat // KB, flat % KB
    crow = np.zeros(MB + 1, np.int32)
    np.add.at(crow, rb + 1, 1)
    return {"crow": np.cumsum(crow).astype(np.int32), "col": cb.astype(np.int32),
            "values": (rng.standard_normal((nnzb, 64, 64)) / 8).astype(np.float16),
            "b": rng.standard_normal((K, N)).astype(np.float16)}


def reference(crow, col, values, b):
    MB = len(crow) - 1
    K, N = b.shape
    a = np.zeros((MB * 64, K))
    for mb in range(MB):
        for e in range(crow[mb], crow[mb + 1]):
            a[mb * 64:(mb + 1) * 64, col[e] * 64:(col[e] + 1) * 64] = values[e]
    return {"out": a @ b.astype(np.float64)}


def peer(crow, col, values, b):
    """A dense matmul of the densified A (torch.sparse_bsr_tensor(...).to_dense(), counted in the time)."""
    import torch
    M = (crow.shape[0] - 1) * 64
    a = torch.sparse_bsr_tensor(crow, col, values, size=(M, b.shape[0])).to_dense()
    return {"out": a @ b}


def OPS(shape):
    nnzb, N = shape["NNZB"], shape["N"]
    return 2 * nnzb * 64 * 64 * N, 2 * (nnzb * 4096 + shape["K"] * N + shape["M"] * N)


def _s(MB, KB, N, nnzb):
    return dict(M=64 * MB, MB1=MB + 1, K=64 * KB, N=N, NNZB=nnzb)


TEST_SHAPES = [_s(1, 1, 1, 1), _s(3, 2, 7, 3), _s(5, 3, 2, 6)]
BENCH_SHAPE = _s(128, 128, 1024, 1638)
TOLERANCE = dict(rtol=2e-3, atol=2e-2)
PEER = "dense matmul of the densified A (torch.sparse_bsr_tensor(...).to_dense() @ B)"
