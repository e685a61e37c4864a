"""Masked row reductions, T.sum / T.max of T.where(visible, x[keys], identity), whose mask compares the key
positions with the row (causal, a chunk, a window, a block diagonal): pgpu-form-blocking makes them blocked
reduction loops (acc = acc + reduce(block)), which pgpu-narrow-fold-ranges now reads as the region folds they
are, so only the blocks where the mask can hold are walked and the blocks where it holds everywhere run
without it (before, every block from 0 to S ran with the mask; only the tail mask was narrowed, by
pgpu-narrow-predicates). A mask read from memory is no coordinate predicate: the loop stays as it was.

Checked against the KIR interpreter (itself against NumPy) through the generated Triton under
TRITON_INTERPRET=1 at odd shapes (0, 1, 13, 67, 203) and chunks / widths (1, 3, 16, 70, wider than the row,
negative chunks), BLOCK 64 (its smallest) so rows span several blocks and masks cross block boundaries.
"""
import math
import os
from conftest import pass_remarks

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

LOOP = "a blocked reduction loop, read as its region fold: "  # after "pgpu-narrow-fold-ranges: "


def masked(name, spelling):
    import tessel
    import tessel.language as T

    @tessel.kernel(name=name)
    def kernel(x: T.In[T.f32, ("S",)], o: T.Out[T.f32, ("S",)], chunk: T.i32):
        (S,) = x.shape
        keys = T.domain(0, S)
        kpos = T.indices(keys)
        C = T.cast(chunk, T.index)
        for i in T.parallel(T.domain(0, S)):
            if spelling == "chunk_sum":
                o[i] = T.sum(T.where((kpos <= i) & (kpos >= (i // C) * C), x[keys], 0.0))
            elif spelling == "band_max":
                o[i] = T.max(T.where(kpos // C == i // C, x[keys], -math.inf))
            elif spelling == "window_sum":
                o[i] = T.sum(T.where((kpos <= i) & (i - kpos < C), x[keys], 0.0))
            else:  # data: a mask read from memory, no coordinate predicate
                o[i] = T.sum(T.where(x[keys] > 0.0, x[keys], 0.0)) + T.cast(C, T.f32)
    return kernel


def reference(x, chunk, spelling):
    S = x.shape[0]
    i, j = np.arange(S)[:, None], np.arange(S)[None, :]
    xs = np.broadcast_to(x[None, :], (S, S))
    if spelling == "chunk_sum":
        return np.where((j <= i) & (j >= (i // chunk) * chunk), xs, 0.0).sum(-1)
    if spelling == "band_max":
        return np.where(i // chunk == j // chunk, xs, -np.inf).max(-1, initial=-np.inf)
    if spelling == "window_sum":
        return np.where((j <= i) & (i - j < chunk), xs, 0.0).sum(-1)
    return np.where(xs > 0, xs, 0.0).sum(-1) + chunk


SPELLINGS = ["chunk_sum", "band_max", "window_sum", "data"]


def remarks(tessel_bin, source):
    return pass_remarks(tessel_bin, source, "pgpu-narrow-fold-ranges")


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_masked_reduction_loops_narrow(tessel_bin, tmp_path, monkeypatch, spelling):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    got = remarks(tessel_bin, masked(f"masked_{spelling}", spelling)._write(tmp_path, {}))
    loops = [r.split(LOOP, 1)[1] for r in got if LOOP in r]
    if spelling == "data":
        assert not loops, got  # must not fire: the mask is loaded data
        return
    # The full blocks' loop and the partial last block's loop, each with its blocks outside the mask skipped.
    assert loops and all("all-false interval(s) skipped" in r and not r.startswith("0 coordinate") for r in loops), got
    if spelling == "band_max":
        assert all("floor quotients read as their band" in r for r in loops), got


@pytest.fixture(scope="module", params=SPELLINGS)
def launched(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TESSEL_CACHE", str(tmp_path_factory.mktemp("cache")))
    kernel = masked(f"masked_triton_{request.param}", request.param)
    yield kernel, kernel._launcher({}, {"BLOCK": 64}), request.param
    mp.undo()


@pytest.mark.parametrize("S", [0, 1, 13, 67, 203])
def test_masked_reductions_match_kir_through_triton(launched, S):
    torch = pytest.importorskip("torch")
    kernel, launch, spelling = launched
    chunks = (1, 3, 16, 70, S + 5) + ((-1, -5, -16) if spelling == "band_max" else ())
    for chunk in chunks:
        ref = kernel.run_interp({"S": S}, {"chunk": chunk}, None, seed=7, segments="random")
        x = torch.from_numpy(np.array(ref["x.in"]))
        want = np.array(ref["o"]).astype(np.float64)
        np.testing.assert_allclose(want, reference(x.double().numpy(), chunk, spelling), rtol=1e-5, atol=1e-5,
                                   err_msg=f"KIR vs NumPy, chunk={chunk}")
        out = torch.full((S,), float("nan"), dtype=torch.float32)
        launch(x, out, chunk=chunk)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=1e-5, atol=1e-5, err_msg=f"chunk={chunk}")
