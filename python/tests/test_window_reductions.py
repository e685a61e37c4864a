"""Reductions over a window of neighbours (local response normalization's sum over the channels
c - 2 .. c + 2, clipped to [0, C)): the reduced range is the length of a slice of constant width w
clipped to its axis, so pgpu-tile-column-reductions declares BLOCK_R `covers = "w"` (SliceWidth.h) and
a call's default binds the smallest candidate holding w (8 for 5) instead of widening BLOCK_R to a tile
of masked rows (corpus 154: [128, 64] tiles, 123 of 128 rows masked, at its bench shape).

Differential: at N 0/1/3, C 0/1/2/5/13 (fewer channels than the window, exactly one window, a prime) and W
0/1/17/67 (non-multiples of every BLOCK_C), the pgpu interpreter at BLOCK_R x BLOCK_C 2x16 (a window in
three blocks), 4x32, 8x64 and 16x128, and the generated Triton under TRITON_INTERPRET=1 at the call's
defaults, compute what the KIR interpreter computes on random inputs.
"""
import os
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T

SIZE = 5


@tessel.kernel
def window_sums(x: T.In[T.f32, ("N", "C", "W")], out: T.Out[T.f32, ("N", "C", "W")]):
    """Sum of squares over channels [c - 2, c + 2] clipped to [0, C), per pixel."""
    N, C, W = x.shape
    chans, ws = T.domain(0, C), T.domain(0, W)
    for n, c in T.parallel(T.domain(0, N), chans):
        win = chans[T.maximum(c - SIZE // 2, 0):T.minimum(c + SIZE // 2 + 1, C)]
        xw = x[n, win, ws]
        out[n, c, ws] = T.sum(xw * xw, axis=0)


@tessel.kernel
def lopsided_window_max(x: T.In[T.f32, ("N", "C", "W")], out: T.Out[T.f32, ("N", "C", "W")]):
    """Max over channels [c - 1, c + 3] clipped (a window of 5 not centred), scaled by the pixel."""
    N, C, W = x.shape
    chans, ws = T.domain(0, C), T.domain(0, W)
    for n, c in T.parallel(T.domain(0, N), chans):
        win = chans[T.maximum(c - 1, 0):T.minimum(c + 4, C)]
        out[n, c, ws] = T.max(x[n, win, ws], axis=0) * x[n, c, ws]


@tessel.kernel
def response_norm(x: T.In[T.f32, ("N", "C", "H", "W")], out: T.Out[T.f32, ("N", "C", "H", "W")]):
    """Local response normalization over NCHW (corpus 154's form)."""
    N, C, H, W = x.shape
    chans, hs, ws = T.domain(0, C), T.domain(0, H), T.domain(0, W)
    for n, c in T.parallel(T.domain(0, N), chans):
        win = chans[T.maximum(c - SIZE // 2, 0):T.minimum(c + SIZE // 2 + 1, C)]
        xw = x[n, win, hs, ws]
        sq = T.sum(xw * xw, axis=0)
        out[n, c, hs, ws] = x[n, c, hs, ws] / (2.0 + (1e-4 / SIZE) * sq) ** 0.75


@tessel.kernel
def runtime_window_sums(x: T.In[T.f32, ("N", "C", "W")], out: T.Out[T.f32, ("N", "C", "W")], half: T.i32):
    """A window of runtime half-width: its length has no constant bound (must not cover a width)."""
    N, C, W = x.shape
    chans, ws = T.domain(0, C), T.domain(0, W)
    h = T.cast(half, T.index)
    for n, c in T.parallel(T.domain(0, N), chans):
        win = chans[T.maximum(c - h, 0):T.minimum(c + h + 1, C)]
        out[n, c, ws] = T.sum(x[n, win, ws], axis=0)


SHAPES3 = [dict(N=0, C=5, W=3), dict(N=2, C=0, W=3), dict(N=2, C=5, W=0), dict(N=1, C=1, W=1), dict(N=3, C=2, W=17), dict(N=1, C=5, W=67), dict(N=3, C=13, W=17),
           dict(N=1, C=13, W=67)]
CASES = [(k, s) for k in (window_sums, lopsided_window_max) for s in SHAPES3] + \
        [(response_norm, dict(N=1, C=1, H=1, W=1)), (response_norm, dict(N=2, C=7, H=3, W=17)),
         (response_norm, dict(N=1, C=13, H=5, W=67))]
IDS = [f"{k.name}-{'-'.join(f'{a}{v}' for a, v in s.items())}" for k, s in CASES]


def run_cli(tessel_bin, kernel, shapes, stage, params):
    with tempfile.TemporaryDirectory() as tmp:
        path = kernel._write(__import__("pathlib").Path(tmp), {})
        out = os.path.join(tmp, "out")
        cmd = [str(tessel_bin), "run", f"{path}:{kernel.name}", "--stage", stage, "--seed", "5", "--out", out,
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
        cmd += [f"--param={k}={v}" for k, v in params.items()]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out)}


@pytest.mark.parametrize("tile", [(2, 16), (4, 32), (8, 64), (16, 128)])
@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_pgpu_matches_kir(tessel_bin, kernel, shapes, tile):
    ref = run_cli(tessel_bin, kernel, shapes, "kir", {})
    # The NCHW form takes [TILE_2, TILE_3] row tiles over (h, w), its window walked one channel a trip
    # (pgpu-form-tiles; test_channel_windows); the others [BLOCK_R, BLOCK_C] column tiles.
    names = ("TILE_2", "TILE_3") if kernel is response_norm else ("BLOCK_R", "BLOCK_C")
    got = run_cli(tessel_bin, kernel, shapes, "pgpu", dict(zip(names, tile)))
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_triton_call_defaults_match_kir(kernel, shapes, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = kernel.run_interp(shapes, seed=5)
    x = torch.from_numpy(np.array(ref["x.in"]))
    out = torch.full(tuple(x.shape), float("nan"))
    if kernel is not response_norm:  # row tiles: no BLOCK_R (test_channel_windows)
        assert kernel.call_defaults(x, out)["BLOCK_R"] == 8
    kernel(x, out)
    np.testing.assert_allclose(out.numpy(), ref["out"], rtol=1e-5, atol=1e-6)


def covers(kernel):
    src = kernel.source("triton")
    line = next(ln for ln in src.splitlines() if ln.startswith(f"{kernel.name}_COVERS = "))
    return eval(line.split(" = ", 1)[1])


@pytest.mark.parametrize("kernel", [window_sums, lopsided_window_max], ids=lambda k: k.name)
def test_window_width_covers_rows(kernel):
    """BLOCK_R covers the window's constant width; at a large call the call's default is the smallest
    candidate holding 5, and no descriptor (TMA) path is switched on for the rows past it (they are other
    channels, masked by the window's length). The NCHW form (corpus 154) takes row tiles instead, its
    window walked one channel a trip (test_channel_windows)."""
    torch = pytest.importorskip("torch")
    assert covers(kernel) == {"BLOCK_R": "5"}
    dims = (16, 96, 3025)
    x = torch.empty(dims, dtype=torch.float32, device="meta")
    chosen = kernel.call_defaults(x, torch.empty_like(x))
    assert chosen["BLOCK_R"] == 8
    assert chosen.get("TMA", 0) == 0


def test_runtime_window_covers_nothing():
    """Must not fire: a window of runtime half-width is bounded by no constant; BLOCK_R keeps its default."""
    torch = pytest.importorskip("torch")
    assert "BLOCK_R" not in covers(runtime_window_sums)
    x = torch.empty((16, 96, 3025), dtype=torch.float32, device="meta")
    assert runtime_window_sums.call_defaults(x, torch.empty_like(x), half=2)["BLOCK_R"] != 8
