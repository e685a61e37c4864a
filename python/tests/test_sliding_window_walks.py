"""Walks over sliding windows (TritonLegalize's LOOP_STAGES default): each lane of a [BLOCK_R, BLOCK_C] tile
walks its own window x[s, lo[c] + r] with lo[c] = max(t[c] + 1 - W, 0), so neighbouring lanes' windows
overlap and the walk's reads hit what the program read before; such a walk is not pipelined by default
(LOOP_STAGES 1, the parameter still declared and searched), while disjoint windows of a stride as long as
the window keep the pipeline. Then each kernel against the KIR interpreter and a NumPy reference, through
Triton under TRITON_INTERPRET=1, on random non-zero inputs at odd shapes (empty, one step, primes past
every block, windows longer than the walk's tile) at the default and at pinned LOOP_STAGES 1 and 3."""
import os
import pathlib
import re
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]
# rolling_sum and strided_sums are the kernels sliding-window-walks.mlir is made from (one source).
sys.path.insert(0, str(ROOT / "test" / "Target" / "Triton" / "Inputs"))
from sliding_windows import rolling_sum, strided_sums  # noqa: E402


def _meta(shape):
    return torch.empty(shape, dtype=torch.float32, device="meta")


def _walk_heads(src: str) -> list:
    return re.findall(r"for v\d+ in (?:tl\.)?range\(0, v\d+, v\d+(?:, num_stages=\d+)?\):", src)


def test_sliding_windows_are_not_pipelined():
    heads = _walk_heads(rolling_sum.source())
    assert heads and not any("num_stages" in h for h in heads), heads
    # The call's default at a bench-sized shape stays unpipelined (corpus 282's S=8192 T=4096 W=64).
    got = rolling_sum.call_defaults(_meta((8192, 4096)), _meta((8192, 4096)), W=64)
    assert got["LOOP_STAGES"] == 1, got
    pinned = _walk_heads(rolling_sum.source(params={"LOOP_STAGES": 3}))
    assert pinned and all(h.endswith(", num_stages=3):") for h in pinned), pinned


def test_disjoint_windows_keep_the_pipeline():
    heads = _walk_heads(strided_sums.source())
    assert heads and all(h.endswith(", num_stages=3):") for h in heads), heads


def _rolling_ref(x, w):
    x = x.astype(np.float64)
    return np.stack([x[:, max(t - w + 1, 0):t + 1].sum(axis=1) for t in range(x.shape[1])], axis=1) \
        if x.shape[1] else np.zeros(x.shape)


def _strided_ref(x, w, p):
    x = x.astype(np.float64)
    nt = x.shape[1]
    return np.stack([x[:, min(q * w, nt):min(q * w + w, nt)].sum(axis=1) for q in range(p)], axis=1) \
        if p else np.zeros((x.shape[0], 0))


def _nonzero(rng, shape):
    x = rng.uniform(0.25, 1.0, size=shape) * np.where(rng.uniform(size=shape) < 0.5, -1.0, 1.0)
    return x.astype(np.float32)


PINS = [None, {"LOOP_STAGES": 1}, {"LOOP_STAGES": 3}]


@pytest.mark.parametrize("shape,w", [((0, 5), 3), ((3, 0), 2), ((1, 1), 1), ((2, 13), 5), ((5, 131), 64),
                                     ((3, 37), 37), ((2, 53), 1), ((1, 300), 257)])
def test_rolling_sum_agrees_with_the_interpreter(shape, w, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = _nonzero(np.random.default_rng(sum(shape) + w), shape)
    want = rolling_sum.run_interp(shapes={}, scalars=dict(W=w), inputs=dict(x=x))["y"]
    np.testing.assert_allclose(want, _rolling_ref(x, w), rtol=1e-4, atol=1e-4)
    for params in PINS:
        y = torch.full(shape, float("nan"))
        if params is None:
            rolling_sum(torch.from_numpy(x), y, W=w)
        else:
            rolling_sum.launch(torch.from_numpy(x), y, W=w, params=params)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,p,w", [((1, 1), 1, 1), ((2, 37), 7, 5), ((3, 131), 3, 64), ((2, 17), 4, 3)])
def test_strided_sums_agree_with_the_interpreter(shape, p, w, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = _nonzero(np.random.default_rng(sum(shape) + p), shape)
    want = strided_sums.run_interp(shapes=dict(P=p), scalars=dict(W=w), inputs=dict(x=x))["y"]
    np.testing.assert_allclose(want, _strided_ref(x, w, p), rtol=1e-4, atol=1e-4)
    for params in PINS:
        y = torch.full((shape[0], p), float("nan"))
        if params is None:
            strided_sums(torch.from_numpy(x), y, W=w)
        else:
            strided_sums.launch(torch.from_numpy(x), y, W=w, params=params)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
