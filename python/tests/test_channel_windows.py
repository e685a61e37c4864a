"""Channel windows over NCHW planes (issue 41): a local response norm's sum of squares over a clipped window
of channels per output element. Flattened to program axes (n, c, h, w), every read (the window's too) walks
w, so pgpu-form-tiles makes [TILE_2, TILE_3] row tiles of (h, w) and the window's reduction walks one
channel a trip, each trip a contiguous tile of that channel's plane (before: one program per row of w, the
window a [BLOCK_R, BLOCK_C] tile with 5 of its 16 rows live). Checked against NumPy on the KIR interpreter
and through Triton under TRITON_INTERPRET=1 at odd shapes (one channel, windows clipped at both ends,
planes shorter and longer than a tile, primes, none)."""
import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import numpy as np
import pytest

import tessel
import tessel.language as T


@tessel.kernel
def channel_window(x: T.In[T.f32, ("N", "C", "H", "W")], out: T.Out[T.f32, ("N", "C", "H", "W")]):
    N, C, H, W = x.shape
    chans, hs, ws = T.domain(0, C), T.domain(0, H), T.domain(0, W)
    for n, c in T.parallel(T.domain(0, N), chans):
        win = chans[T.maximum(c - 2, 0):T.minimum(c + 3, C)]
        xw = x[n, win, hs, ws]
        sq = T.sum(xw * xw, axis=0)
        out[n, c, hs, ws] = x[n, c, hs, ws] / (2.0 + 0.25 * sq)


@tessel.kernel
def channel_max(x: T.In[T.f32, ("N", "C", "H", "W")], out: T.Out[T.f32, ("N", "C", "H", "W")]):
    # A window of up to 3 channels after c under a maximum (another combine, a one-sided clipped window).
    N, C, H, W = x.shape
    chans, hs, ws = T.domain(0, C), T.domain(0, H), T.domain(0, W)
    for n, c in T.parallel(T.domain(0, N), chans):
        win = chans[c:T.minimum(c + 3, C)]
        out[n, c, hs, ws] = T.max(x[n, win, hs, ws], axis=0) - x[n, c, hs, ws]


def _want(x):
    xf = x.astype(np.float64)
    C = x.shape[1]
    s = np.zeros_like(xf)
    for c in range(C):
        s[:, c] = (xf[:, max(c - 2, 0):min(c + 3, C)] ** 2).sum(axis=1)
    return xf / (2.0 + 0.25 * s)


@pytest.mark.parametrize("n,c,h,w", [(1, 1, 1, 1), (2, 3, 5, 7), (1, 7, 11, 17), (2, 4, 9, 67), (1, 3, 0, 4)])
def test_channel_window(n, c, h, w):
    import torch
    x = np.random.default_rng(n * c * h + w).standard_normal((n, c, h, w)).astype(np.float32)
    want = _want(x)
    shapes = {"N": n, "C": c, "H": h, "W": w}
    got = channel_window.run_interp(shapes=shapes, inputs=dict(x=x))
    np.testing.assert_allclose(got["out"], want, rtol=1e-5, atol=1e-6)
    t = torch.full((n, c, h, w), float("nan"))
    channel_window(torch.from_numpy(x), t)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-6)
    # tiles of a few rows, ending mid-row
    t.fill_(float("nan"))
    channel_window.launch(torch.from_numpy(x), t, params={"TILE_2": 4, "TILE_3": 16})
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n,c,h,w", [(1, 1, 1, 1), (2, 4, 3, 19), (1, 5, 10, 33)])
def test_channel_max(n, c, h, w):
    import torch
    x = np.random.default_rng(n * c * h + w).standard_normal((n, c, h, w)).astype(np.float32)
    want = np.stack([x[:, k:min(k + 3, c)].max(axis=1) for k in range(c)], axis=1) - x
    got = channel_max.run_interp(shapes={"N": n, "C": c, "H": h, "W": w}, inputs=dict(x=x))
    np.testing.assert_array_equal(got["out"], want)
    t = torch.full((n, c, h, w), float("nan"))
    channel_max.launch(torch.from_numpy(x), t, params={"TILE_2": 2, "TILE_3": 16})
    np.testing.assert_array_equal(t.numpy(), want)


def test_window_walks_channels_over_row_tiles():
    # [TILE_2, TILE_3] tiles of (h, w); the window a loop of one channel a trip, no [BLOCK_R, BLOCK_C] tile.
    for k in (channel_window, channel_max):
        src = k.source()
        params = next(ln for ln in src.split("\n") if "_PARAMS = {" in ln)
        assert "'TILE_2': ([1, 2, 4, 8, 16, 32], 8)" in params and "'TILE_3'" in params, params
        assert "BLOCK_R" not in params, params
        assert ", 1, num_stages=" in src  # the window's loop steps one channel a trip


@pytest.mark.parametrize("shape,params", [("N=2,C=5,H=7,W=13", "TILE_2=2,TILE_3=16"), ("N=1,C=2,H=9,W=67", None)])
def test_pgpu_interpreter_agrees_with_kir(tessel_bin, tmp_path, shape, params):
    # The tiled program on the pgpu interpreter (program order shuffled) computes what the KIR computes: the
    # window's members are added in the same order, so the outputs are the same bits.
    import subprocess
    kir, pgpu = tmp_path / "k.mlir", tmp_path / "p.mlir"
    kir.write_text(channel_window.kir({}))
    pgpu.write_text(channel_window.compile("pgpu"))
    assert "TILE_2" in pgpu.read_text()
    outs = []
    for path, extra in ((kir, []), (pgpu, ["--order", "shuffle"] + (["--param", params] if params else []))):
        res = subprocess.run([str(tessel_bin), "run", str(path), "--shape", shape, "--seed", "4"] + extra,
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        outs.append(res.stdout.strip().splitlines()[-1])
    assert outs[0] == outs[1] and "hash=" in outs[0], outs
