"""Pairwise maps (issue 41/42): out[i, j] = f(a's row i, b's row j) with every read on one of the two axes
(box IoU, corpus 214; an outer difference). pgpu-form-tiles blocks both axes as [TILE_0, TILE_1] tiles, so
each loaded row serves a whole tile instead of b being read again for every row i. Checked against NumPy on
the KIR interpreter and through Triton under TRITON_INTERPRET=1 at odd shapes (empty, one, primes, tiles
ending mid-row and mid-column); a map that also reads x[i, j] keeps the row walk."""
import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import numpy as np
import pytest

import tessel
import tessel.language as T


@tessel.kernel
def box_iou(a: T.In[T.f32, ("N", 4)], b: T.In[T.f32, ("M", 4)], out: T.Out[T.f32, ("N", "M")]):
    N = a.shape[0]
    cols = T.domain(0, b.shape[0])
    bx1, by1, bx2, by2 = b[cols, 0], b[cols, 1], b[cols, 2], b[cols, 3]
    area_b = (bx2 - bx1) * (by2 - by1)
    for i in T.parallel(T.domain(0, N)):
        ax1, ay1, ax2, ay2 = a[i, 0], a[i, 1], a[i, 2], a[i, 3]
        iw = T.maximum(T.minimum(bx2, ax2) - T.maximum(bx1, ax1), 0.0)
        ih = T.maximum(T.minimum(by2, ay2) - T.maximum(by1, ay1), 0.0)
        inter = iw * ih
        union = (ax2 - ax1) * (ay2 - ay1) + area_b - inter
        out[i, cols] = T.where(union > 0.0, inter / union, 0.0)


@tessel.kernel
def scaled_rows(x: T.In[T.f32, ("N", "M")], s: T.In[T.f32, ("N",)], out: T.Out[T.f32, ("N", "M")]):
    # Must not tile: x[i, j] depends on both axes (nothing to reuse across a tile).
    cols = T.domain(0, x.shape[1])
    for i in T.parallel(T.domain(0, x.shape[0])):
        out[i, cols] = x[i, cols] * s[i]


def _boxes(n, rng):
    xy = rng.uniform(0.0, 10.0, size=(n, 2))
    wh = rng.uniform(0.0, 4.0, size=(n, 2))
    wh[rng.random(n) < 0.2] = 0.0
    return np.concatenate([xy, xy + wh], axis=1).astype(np.float32)


def _iou(a, b):
    a, b = a.astype(np.float64), b.astype(np.float64)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0.0, None)
    inter = wh[..., 0] * wh[..., 1]
    union = ((a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]))[:, None] + ((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]))[None] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / union, 0.0)


@pytest.mark.parametrize("n,m", [(0, 5), (1, 1), (3, 0), (7, 13), (37, 131)])
def test_box_iou(n, m):
    import torch
    rng = np.random.default_rng(n * 131 + m)
    a, b = _boxes(n, rng), _boxes(m, rng)
    want = _iou(a, b)
    got = box_iou.run_interp(shapes={"N": n, "M": m}, inputs=dict(a=a, b=b))
    np.testing.assert_allclose(got["out"], want, rtol=1e-5, atol=1e-6)
    t = torch.full((n, m), float("nan"))
    box_iou(torch.from_numpy(a), torch.from_numpy(b), t)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-6)
    # tiles of a few rows and the narrowest run, ending mid-row and mid-column
    t.fill_(float("nan"))
    box_iou.launch(torch.from_numpy(a), torch.from_numpy(b), t, params={"TILE_0": 4, "TILE_1": 16})
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-6)


def test_pairwise_tiles_fire_only_on_reuse():
    src = box_iou.source("triton")
    assert "tl.arange(0, 8)" in src and "[8, 64]" in src  # [TILE_0, TILE_1] tiles at the defaults
    assert "TILE_0" in box_iou.pgpu() and "TILE_1" in box_iou.pgpu()
    assert "TILE_" not in scaled_rows.pgpu()
    import torch
    x = np.random.default_rng(3).standard_normal((5, 19)).astype(np.float32)
    s = np.random.default_rng(4).standard_normal(5).astype(np.float32)
    t = torch.full((5, 19), float("nan"))
    scaled_rows(torch.from_numpy(x), torch.from_numpy(s), t)
    np.testing.assert_array_equal(t.numpy(), x * s[:, None])


def test_pgpu_interpreter_agrees_with_kir(tessel_bin, tmp_path):
    # The tiled program on the pgpu interpreter (programs in shuffled order, tiles of 2 x 16) computes
    # what the KIR computes, to the bit: each output element is the same expression of the same reads.
    import subprocess
    kir, pgpu = tmp_path / "k.mlir", tmp_path / "p.mlir"
    kir.write_text(box_iou.kir({}))
    pgpu.write_text(box_iou.compile("pgpu"))
    assert "TILE_0" in pgpu.read_text()
    outs = []
    for path, extra in ((kir, []), (pgpu, ["--order", "shuffle", "--param", "TILE_0=2,TILE_1=16"])):
        res = subprocess.run([str(tessel_bin), "run", str(path), "--shape", "N=11,M=37", "--seed", "4"] + extra,
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        outs.append(res.stdout.strip().splitlines()[-1])
    assert outs[0] == outs[1] and "hash=" in outs[0], outs
