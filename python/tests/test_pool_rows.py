"""Pools and stencils over (n, row) with a row of columns (issue 41): the value and argmax stores of a pool,
one workset each, merge into one (pgpu-flatten-worksets), which flattens to program axes (n, i, ow); every
access walks ow, so programs take [TILE_1, TILE_2] tiles of output rows and columns (pgpu-form-tiles), the
input rows 2 * i + dy and i + dh - 1 computed once per tile row and n once per program (the flat walk of
pgpu-refine-mapping's row loops, BLOCK_P outputs over all rows, decoded every lane's row and n). Checked
against NumPy on the KIR interpreter and through Triton under TRITON_INTERPRET=1 at odd shapes (rows
shorter and longer than a tile, primes, one element, none)."""
import math
import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import numpy as np
import pytest

import tessel
import tessel.language as T


@tessel.kernel
def maxpool(x: T.In[T.f32, ("N", "H", "W")], y: T.Out[T.f32, ("N", "OH", "OW")],
            at: T.Out[T.i32, ("N", "OH", "OW")]):
    N, H, W = x.shape
    ocols = T.domain(0, y.shape[2])
    ow = T.indices(ocols)
    for n, i in T.parallel(T.domain(0, N), T.domain(0, y.shape[1])):
        best = T.full((ocols,), -math.inf, T.f32)
        where = T.full((ocols,), 0, T.i32)
        for dy in range(2):
            for dx in range(2):
                h = 2 * i + dy
                w = 2 * ow + dx
                v = x[n, h, w]
                better = v > best
                best = T.where(better, v, best)
                where = T.where(better, T.cast(h * W + w, T.i32), where)
        y[n, i, ocols] = best
        at[n, i, ocols] = where


@tessel.kernel
def vertical_blur(x: T.In[T.f32, ("N", "H", "W")], y: T.Out[T.f32, ("N", "H", "W")]):
    N, H, W = x.shape
    cols = T.domain(0, W)
    for n, i in T.parallel(T.domain(0, N), T.domain(0, H)):
        acc = T.full((cols,), 0.0, T.f32)
        for dh in range(3):
            ih = i + (dh - 1)
            acc = acc + T.load(x, (n, ih, cols), valid=(ih >= 0) & (ih < H), fill=0.0)
        y[n, i, cols] = acc * (1.0 / 3.0)


def _pool_want(x):
    N, H, W = x.shape
    OH, OW = H // 2, W // 2
    win = x[:, :2 * OH, :2 * OW].reshape(N, OH, 2, OW, 2).transpose(0, 1, 3, 2, 4).reshape(N, OH, OW, 4)
    k = np.argmax(win, axis=-1)
    hh = 2 * np.arange(OH)[:, None] + k // 2
    ww = 2 * np.arange(OW)[None, :] + k % 2
    return win.max(axis=-1), (hh * W + ww).astype(np.int32)


@pytest.mark.parametrize("n,h,w", [(1, 2, 2), (2, 7, 13), (1, 33, 31), (3, 2, 65), (2, 5, 1), (1, 0, 4),
                                   (3, 37, 61)])
def test_maxpool(n, h, w):
    import torch
    x = np.random.default_rng(h * w + n).standard_normal((n, h, w)).astype(np.float32)
    want_y, want_at = _pool_want(x)
    shapes = {"N": n, "H": h, "W": w, "OH": h // 2, "OW": w // 2}
    out = maxpool.run_interp(shapes=shapes, inputs=dict(x=x))
    np.testing.assert_array_equal(out["y"], want_y)
    np.testing.assert_array_equal(out["at"], want_at)
    ty = torch.zeros((n, h // 2, w // 2))
    ta = torch.zeros((n, h // 2, w // 2), dtype=torch.int32)
    maxpool(torch.from_numpy(x), ty, ta)
    np.testing.assert_array_equal(ty.numpy(), want_y)
    np.testing.assert_array_equal(ta.numpy(), want_at)
    # tiles of a few rows, ending mid-row (the column tile narrower than most rows)
    ty.fill_(float("nan"))
    ta.fill_(-1)
    maxpool.launch(torch.from_numpy(x), ty, ta, params={"TILE_1": 4, "TILE_2": 16})
    np.testing.assert_array_equal(ty.numpy(), want_y)
    np.testing.assert_array_equal(ta.numpy(), want_at)


@pytest.mark.parametrize("n,h,w", [(1, 1, 1), (2, 7, 13), (1, 3, 257), (2, 11, 3)])
def test_vertical_blur(n, h, w):
    import torch
    x = np.random.default_rng(h * w + n).standard_normal((n, h, w)).astype(np.float32)
    p = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (0, 0)))
    want = (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) / 3.0
    out = vertical_blur.run_interp(shapes={"N": n, "H": h, "W": w}, inputs=dict(x=x))
    np.testing.assert_allclose(out["y"], want, rtol=1e-5, atol=1e-6)
    ty = torch.zeros((n, h, w))
    vertical_blur(torch.from_numpy(x), ty)
    np.testing.assert_allclose(ty.numpy(), want, rtol=1e-5, atol=1e-6)


def test_pool_rows_share_programs():
    # Row tiles: [TILE_1, TILE_2] tiles of (row, column), no flat walk of BLOCK_P members.
    for k in (maxpool, vertical_blur):
        params = next(ln for ln in k.source().split("\n") if "_PARAMS = {" in ln)
        assert "'TILE_1': ([1, 2, 4, 8, 16, 32], 8)" in params and "'TILE_2'" in params, k.name
        assert "BLOCK_P" not in params, k.name


def test_pool_value_and_argmax_share_a_walk():
    # The value store and the argmax store run in one tile body: each window is read once for both stores
    # (unmerged, each output's walk read the four windows again), and no loop walks the members.
    pgpu = maxpool.compile("pgpu")
    assert pgpu.count("pgpu.gather %x[") == 4, pgpu
    assert pgpu.count("pgpu.store") == 2, pgpu
    assert pgpu.count("pgpu.for ") == 0, pgpu
