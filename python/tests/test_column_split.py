"""pgpu-tile-column-reductions emits a column reduction's tiles as a pgpu.region_fold (uniform bounds),
so pgpu-split-folds may cut its rows into FOLD_SPLIT contiguous segments, one program each: a few kept
columns over many rows (a bias gradient's db[n] = sum_m dy[m, n], 8 column blocks of 128 over 65,536
rows) no longer run in as many programs as column blocks. Each segment stores its [BLOCK_R, BLOCK_C]
accumulator to workspace and the column block's last arrival combines them in segment order
(deterministic: no atomics on values, the same association on every run).

Differential: at M over 1, 2, 17 (BLOCK_R 16 plus one), 131, 1031 and N over 1, 3, 131 (non-multiples of
every BLOCK_C), at FOLD_SPLIT 1, 2, 4, 64 (capped at the tile count; empty segments), the pgpu
interpreter in shuffled program order computes what the KIR interpreter computes; the generated Triton
under TRITON_INTERPRET=1 too, twice per launch (the tickets return to zero), and bit-identically on a
second call (a deterministic combine).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T
from conftest import kir_and_pgpu, shape_arg

PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]


@tessel.kernel
def colsum(dy: T.In[T.f32, ("M", "N")], db: T.Out[T.f32, ("N",)]):
    M, N = dy.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    db[cols] = T.sum(dy[rows, cols], axis=0)


@tessel.kernel
def colmax_scaled(dy: T.In[T.f32, ("M", "N")], db: T.Out[T.f32, ("N",)]):
    """A max (identity -inf) with pointwise work after it."""
    M, N = dy.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    db[cols] = T.max(dy[rows, cols], axis=0) * 2.0


@tessel.kernel
def pool_nhwc(x: T.In[T.f32, ("N", "H", "W", "C")], out: T.Out[T.f32, ("N", "C")]):
    """A mean over (h, w) per (n, c) of an NHWC view: the nested sums are one over the flattened rows."""
    nn, nh, nw, nc = x.shape
    hs, ws, cs = T.domain(0, nh), T.domain(0, nw), T.domain(0, nc)
    for n in T.parallel(T.domain(0, nn)):
        out[n, cs] = T.sum(x[n, hs, ws, cs], axis=(0, 1)) / T.cast(nh * nw, T.f32)


SHAPES = [dict(M=1, N=1), dict(M=2, N=3), dict(M=17, N=131), dict(M=131, N=3), dict(M=1031, N=1)]


@pytest.mark.parametrize("split", [1, 2, 4, 64])
@pytest.mark.parametrize("shapes", SHAPES, ids=shape_arg)
@pytest.mark.parametrize("kernel", [colsum, colmax_scaled], ids=["sum", "max"])
def test_split_column_reduction_matches_kir(tessel_bin, tmp_path, kernel, shapes, split):
    kir, out, text = kir_and_pgpu(tessel_bin, tmp_path, kernel, shapes, 5,
                                  {"BLOCK_R": 16, "BLOCK_C": 16, "FOLD_SPLIT": split}, pipeline=PIPELINE)
    assert 'pgpu.workspace_extent "FOLD_SPLITS"' in text and "pgpu.last_program" in text
    want, got = np.load(kir / "db.npy"), np.load(out / "db.npy")
    assert np.all(want != 0) or shapes["M"] == 0
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shapes", [dict(M=1, N=1), dict(M=131, N=3), dict(M=1031, N=17)], ids=shape_arg)
def test_triton_split_column_sum_matches_kir(tmp_path, monkeypatch, shapes):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    params = {"BLOCK_R": 16, "BLOCK_C": 16, "FOLD_SPLIT": 4}
    src = colsum.source("triton", {}, params)
    assert "sem='acq_rel'" in src
    ref = colsum.run_interp(shapes, {}, {}, seed=4)
    dy = torch.from_numpy(np.array(ref["dy.in"]))
    launch = colsum._launcher({}, params)
    first = None
    for _ in range(3):
        db = torch.full((shapes["N"],), float("nan"), dtype=torch.float32)
        launch(dy, db)
        np.testing.assert_allclose(db.double().numpy(), np.array(ref["db"]).astype(np.float64), rtol=1e-5, atol=1e-5)
        assert not any(t.any() for t in launch.__globals__["_ZEROED"].values())
        if first is None:
            first = db.clone()
        assert torch.equal(first, db)  # the same association on every call: deterministic


def test_split_default_for_few_columns():
    """The bias gradient's bench shape (8 column blocks of 128) takes a FOLD_SPLIT that fills 132
    multiprocessors; a launch with enough column blocks keeps 1."""
    torch = pytest.importorskip("torch")
    few = (torch.empty((65536, 1024), device="meta"), torch.empty((1024,), device="meta"))
    many = (torch.empty((64, 65536), device="meta"), torch.empty((65536,), device="meta"))
    assert colsum.call_defaults(*few).get("FOLD_SPLIT", 1) > 1
    assert colsum.call_defaults(*many).get("FOLD_SPLIT", 1) == 1


POOL_SHAPES = [dict(N=1, H=1, W=1, C=1), dict(N=2, H=3, W=5, C=131), dict(N=3, H=13, W=11, C=7),
               dict(N=1, H=1, W=37, C=17), dict(N=2, H=17, W=1, C=3)]


@pytest.mark.parametrize("split", [1, 4, 64])
@pytest.mark.parametrize("shapes", POOL_SHAPES, ids=shape_arg)
def test_flattened_pool_matches_kir(tessel_bin, tmp_path, shapes, split):
    """The (h, w) nest is one column reduction over H * W rows (h = r / W, w = r % W), split by FOLD_SPLIT."""
    kir, out, text = kir_and_pgpu(tessel_bin, tmp_path, pool_nhwc, shapes, 7,
                                  {"BLOCK_R": 4, "BLOCK_C": 16, "FOLD_SPLIT": split}, pipeline=PIPELINE)
    assert "pgpu.last_program" in text and "rem" in text
    np.testing.assert_allclose(np.load(out / "out.npy").astype(np.float64),
                               np.load(kir / "out.npy").astype(np.float64), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shapes", [dict(N=2, H=3, W=5, C=131), dict(N=3, H=13, W=11, C=7)], ids=shape_arg)
def test_triton_flattened_pool_matches_kir(tmp_path, monkeypatch, shapes):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    params = {"BLOCK_R": 4, "BLOCK_C": 16, "FOLD_SPLIT": 4}
    ref = pool_nhwc.run_interp(shapes, {}, {}, seed=8)
    x = torch.from_numpy(np.array(ref["x.in"]))
    launch = pool_nhwc._launcher({}, params)
    for _ in range(2):
        out = torch.full((shapes["N"], shapes["C"]), float("nan"), dtype=torch.float32)
        launch(x, out)
        np.testing.assert_allclose(out.double().numpy(), np.array(ref["out"]).astype(np.float64), rtol=1e-5, atol=1e-5)
