"""Per-member histograms (HistogramMerge.cpp: a histogram stored inside a kir.parallel at [member
coordinates..., bins]): each member counts its source into its own row of a kept zero workspace and
copies the row out, returning it to zero; pgpu-privatize-histograms counts each member's blocks into a
tl.histogram fragment first when HBINS x HPASSES holds the bins (else the direct atomics). Against
NumPy's bincount per row and the KIR interpreter on random values from [-3, NB + 3) (outside the bins:
masked by `valid=`; 0 and NB - 1 forced in), at odd shapes (B = 1, rows of length 0 and 1, primes, no
multiple of any block):

  * the pgpu interpreter (shuffled program order) at the privatized, direct and bin-range bindings;
  * the generated Triton under TRITON_INTERPRET=1, called twice on the same kernel object (the kept
    workspace must be zero again for the second call), at the default binding and the direct one.

The column form (bins the first coordinate) keeps the per-bin construction and stays correct.
"""
import importlib.util
import os
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import run_stage  # noqa: E402


@tessel.kernel
def row_hist(x: T.In[T.i32, ("B", "L")], out: T.Out[T.i32, ("B", "NB")]):
    B, L = x.shape
    cols, bins = T.domain(0, L), out.domain(1)
    NB = T.cast(out.shape[1], T.i32)
    for r in T.parallel(T.domain(0, B)):
        v = x[r, cols]
        out[r, bins] = T.histogram(v, bins, valid=(v >= 0) & (v < NB), dtype=T.i32)


@tessel.kernel
def head_hist(x: T.In[T.i32, ("B", "H", "L")], keep: T.In[T.i32, ("B", "H", "L")],
              out: T.Out[T.i32, ("B", "H", "NB")]):
    """Two member axes, a validity mask, bins a symbolic extent."""
    B, H, L = x.shape
    cols, bins = T.domain(0, L), out.domain(2)
    NB = T.cast(out.shape[2], T.i32)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        v = x[b, h, cols]
        out[b, h, bins] = T.histogram(v, bins, valid=(keep[b, h, cols] > 0) & (v >= 0) & (v < NB), dtype=T.i32)


@tessel.kernel
def column_hist(x: T.In[T.i32, ("B", "L")], out: T.Out[T.i32, ("NB", "B")]):
    """Must not take the member form: the bins are the first coordinate."""
    B, L = x.shape
    cols, bins = T.domain(0, L), out.domain(0)
    NB = T.cast(out.shape[0], T.i32)
    for r in T.parallel(T.domain(0, B)):
        v = x[r, cols]
        out[bins, r] = T.histogram(v, bins, valid=(v >= 0) & (v < NB), dtype=T.i32)


# HBINS 1024 holds every NB below in one pass; HBINS 32 holds NB <= 32 (the rest direct); HBINS 32 in
# up to 4 passes holds NB <= 128.
BINDINGS = {"privatized": "HBINS=1024,BLOCK=64", "direct": "HBINS=32,HPASSES=1,BLOCK=128",
            "ranges": "HBINS=32,HPASSES=4,BLOCK=64"}
SHAPES = [dict(B=1, L=1, NB=1), dict(B=3, L=0, NB=5), dict(B=5, L=1, NB=7), dict(B=7, L=131, NB=37),
          dict(B=2, L=1031, NB=97), dict(B=13, L=67, NB=256), dict(B=1, L=4099, NB=3)]


def values(rng, shape, nb):
    x = rng.integers(-3, nb + 3, shape).astype(np.int32)
    flat = x.reshape(-1)
    if flat.size >= 2:  # the bin edges
        flat[0], flat[-1] = 0, nb - 1
    return x


def bincount_rows(x, nb, keep=None):
    lead = x.shape[:-1]
    out = np.zeros(lead + (nb,), np.int32)
    for idx in np.ndindex(*lead):
        v = x[idx]
        ok = (v >= 0) & (v < nb)
        if keep is not None:
            ok &= keep[idx] > 0
        out[idx] = np.bincount(v[ok], minlength=nb)[:nb]
    return out


def generated(kernel, params, tmp):
    """The Triton module of `kernel` compiled at `params`, and its kernel entry."""
    src = tmp / f"{kernel.name}.mlir"
    src.write_text(kernel.kir({}))
    path = tmp / f"{kernel.name}_{abs(hash(params))}.py"
    args = [str(os.environ.get("TESSEL_BIN_FOR_TEST")), "compile", str(src), "--emit=source", "-o", str(path)]
    for p in params.split(","):
        args += ["--param", p]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, kernel.name), path.read_text()


@pytest.fixture(autouse=True)
def _bin(tessel_bin, monkeypatch):
    monkeypatch.setenv("TESSEL_BIN_FOR_TEST", str(tessel_bin))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_row_histogram_matches_bincount(tessel_bin, shape):
    rng = np.random.default_rng(shape["B"] * 1000 + shape["L"] + shape["NB"])
    x = values(rng, (shape["B"], shape["L"]), shape["NB"])
    want = bincount_rows(x, shape["NB"])
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_stage(tessel_bin, row_hist, "kir", shape, {"x": x}, tmp) / "out.npy")
        np.testing.assert_array_equal(got, want, err_msg="kir")
        for form, params in BINDINGS.items():
            got = np.load(run_stage(tessel_bin, row_hist, "pgpu", shape, {"x": x}, tmp,
                                    dict(p.split("=") for p in params.split(","))) / "out.npy")
            np.testing.assert_array_equal(got, want, err_msg=f"pgpu {form}")
    import torch
    for _ in range(2):  # the second call finds the kept workspace zero again
        out = torch.full((shape["B"], shape["NB"]), -1, dtype=torch.int32)
        row_hist(torch.from_numpy(x), out)
        np.testing.assert_array_equal(out.numpy(), want, err_msg="triton")


@pytest.mark.parametrize("shape", [dict(B=1, H=1, L=1, NB=4), dict(B=2, H=3, L=0, NB=4),
                                   dict(B=3, H=5, L=37, NB=11), dict(B=2, H=2, L=521, NB=67)],
                         ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_member_histogram_of_two_axes_with_validity(tessel_bin, shape):
    rng = np.random.default_rng(shape["L"] + 7 * shape["NB"])
    dims = (shape["B"], shape["H"], shape["L"])
    x, keep = values(rng, dims, shape["NB"]), rng.integers(0, 2, dims).astype(np.int32)
    want = bincount_rows(x, shape["NB"], keep)
    inputs = {"x": x, "keep": keep}
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_stage(tessel_bin, head_hist, "kir", shape, inputs, tmp) / "out.npy")
        np.testing.assert_array_equal(got, want, err_msg="kir")
        for form, params in BINDINGS.items():
            got = np.load(run_stage(tessel_bin, head_hist, "pgpu", shape, inputs, tmp,
                                    dict(p.split("=") for p in params.split(","))) / "out.npy")
            np.testing.assert_array_equal(got, want, err_msg=f"pgpu {form}")
    import torch
    for _ in range(2):
        out = torch.full(dims[:2] + (shape["NB"],), -1, dtype=torch.int32)
        head_hist(torch.from_numpy(x), torch.from_numpy(keep), out)
        np.testing.assert_array_equal(out.numpy(), want, err_msg="triton")


def test_direct_form_in_triton_and_spellings(tmp_path):
    """The direct atomics (HBINS 32 cannot hold 97 bins) in Triton, called twice; and what each form
    spells: the privatized one a tl.histogram of the row, no per-bin re-read of the source."""
    import torch
    direct, text = generated(row_hist, BINDINGS["direct"], tmp_path)
    assert "tl.atomic_xchg(" in text and "tl.debug_barrier()" in text
    x = values(np.random.default_rng(5), (5, 300), 97)
    want = bincount_rows(x, 97)
    for _ in range(2):
        out = torch.full((5, 97), -1, dtype=torch.int32)
        direct(torch.from_numpy(x), out)
        np.testing.assert_array_equal(out.numpy(), want)
    _, text = generated(row_hist, "HBINS=128,BLOCK=256", tmp_path)
    assert "tl.histogram(" in text and ", 128, mask=" in text


@pytest.mark.parametrize("shape", [dict(B=1, L=1, NB=3), dict(B=4, L=33, NB=9)],
                         ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_column_histogram_keeps_the_per_bin_form(tessel_bin, shape):
    rng = np.random.default_rng(shape["L"])
    x = values(rng, (shape["B"], shape["L"]), shape["NB"])
    want = bincount_rows(x, shape["NB"]).T
    assert "tl.histogram(" not in column_hist.source("triton")
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_stage(tessel_bin, column_hist, "pgpu", shape, {"x": x}, tmp) / "out.npy")
        np.testing.assert_array_equal(got, want)
    import torch
    out = torch.full((shape["NB"], shape["B"]), -1, dtype=torch.int32)
    column_hist(torch.from_numpy(x), out)
    np.testing.assert_array_equal(out.numpy(), want)
