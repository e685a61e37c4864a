"""Row reductions of a foreach at tile speed (pgpu-pack-rows' foreach rule, corpus 94_knn_top8): a foreach
whose members each reduce a short row and write the result (the squared distances d[m, n] = sum_d (k[n, d] -
q[m, d])^2 kept in a workspace for the selections after them) walks its members ROWS at a time where the
row fits BLOCK: the rows read as [ROWS, BLOCK] tiles, reduced over axis 1, written as [ROWS] (members past
the range masked off); a row wider than BLOCK keeps the member-by-member walk. Differential: Triton under
TRITON_INTERPRET=1 against the KIR interpreter at odd shapes (N 1, 13, 37; D 1, 7, 64, 130), at the call's
defaults and at bindings that run both paths, the last trip part empty."""
import math
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def nearest_two(q: T.In[T.f32, ("M", "D")], k: T.In[T.f32, ("N", "D")],
                dist: T.Out[T.f32, ("M", 2)], idx: T.Out[T.i32, ("M", 2)]):
    M, D = q.shape
    keys, dims = T.domain(0, k.shape[0]), T.domain(0, D)
    pos = T.indices(keys)
    for m in T.parallel(T.domain(0, M)):
        diff = k[keys, dims] - q[m, dims]
        d = T.sum(diff * diff, axis=1)
        for j in range(2):
            best, at = T.argmin(d, tie="lowest")
            dist[m, j] = best
            idx[m, j] = T.cast(at, T.i32)
            d = T.where(pos == at, math.inf, d)


@tessel.kernel
def nearest_two_expanded(q: T.In[T.f32, ("M", "D")], k: T.In[T.f32, ("N", "D")],
                         dist: T.Out[T.f32, ("M", 2)], idx: T.Out[T.i32, ("M", 2)]):
    M, D = q.shape
    keys, dims = T.domain(0, k.shape[0]), T.domain(0, D)
    pos = T.indices(keys)
    for m in T.parallel(T.domain(0, M)):
        qr, kr = q[m, dims], k[keys, dims]
        # |k|^2 - 2 q.k + |q|^2: the row passes a constant spread over the keys before the parallel
        # (kir-row-parallels keeps it), its member a sum and a matvec over one walk of D
        d = T.sum(kr * kr, axis=1) - 2.0 * T.matvec(kr, qr) + T.sum(qr * qr)
        for j in range(2):
            best, at = T.argmin(d, tie="lowest")
            dist[m, j] = best
            idx[m, j] = T.cast(at, T.i32)
            d = T.where(pos == at, math.inf, d)


def _params(kernel):
    return next(l for l in kernel.source().split("\n") if "_PARAMS = {" in l)


def test_the_distances_take_rows_a_step():
    assert "'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 32)" in _params(nearest_two)
    src = nearest_two.source(params={"ROWS": 8, "BLOCK": 64})
    # the [ROWS, BLOCK] tile of keys, its row sums over axis 1 written as [ROWS]
    assert "[:, None], [8, 64])" in src and "tl.sum(" in src and ", 1)" in src


BINDINGS = [None, {"ROWS": 4, "BLOCK": 16}, {"ROWS": 128, "BLOCK": 128}]
DEEP = pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP=1 runs the full matrix")
CASES = [(1, 1, 1), (3, 13, 7), (2, 37, 64), (2, 5, 130)] + [
    pytest.param(m, n, d, marks=DEEP) for m, n, d in [(1, 37, 1), (5, 1, 64), (3, 64, 16), (2, 13, 130)]]


@pytest.mark.parametrize("m,n,d", CASES)
def test_nearest_two_agrees_with_the_interpreter(m, n, d, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 10000 + n * 100 + d)
    q = rng.integers(-3, 4, size=(m, d)).astype(np.float32)  # small integers: exact sums, frequent ties
    k = rng.integers(-3, 4, size=(n, d)).astype(np.float32)
    want = nearest_two.run_interp(shapes={}, inputs=dict(q=q, k=k))
    for params in BINDINGS:
        dist = torch.full((m, 2), float("nan"))
        idx = torch.full((m, 2), -7, dtype=torch.int32)
        args = (torch.from_numpy(q), torch.from_numpy(k), dist, idx)
        if params is None:
            nearest_two(*args)
        else:
            nearest_two.launch(*args, params=params)
        np.testing.assert_array_equal(dist.numpy(), want["dist"], err_msg=str(params))
        np.testing.assert_array_equal(idx.numpy(), want["idx"], err_msg=str(params))


@pytest.mark.parametrize("m,n,d", [(3, 13, 7), (2, 37, 64)] + [
    pytest.param(m, n, d, marks=DEEP) for m, n, d in [(1, 1, 1), (2, 5, 130)]])
def test_the_expanded_distances_agree_with_the_interpreter(m, n, d, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    assert "'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 32)" in _params(nearest_two_expanded)
    rng = np.random.default_rng(m * 10000 + n * 100 + d + 1)
    q = rng.integers(-3, 4, size=(m, d)).astype(np.float32)
    k = rng.integers(-3, 4, size=(n, d)).astype(np.float32)
    want = nearest_two_expanded.run_interp(shapes={}, inputs=dict(q=q, k=k))
    for params in BINDINGS:
        dist = torch.full((m, 2), float("nan"))
        idx = torch.full((m, 2), -7, dtype=torch.int32)
        args = (torch.from_numpy(q), torch.from_numpy(k), dist, idx)
        if params is None:
            nearest_two_expanded(*args)
        else:
            nearest_two_expanded.launch(*args, params=params)
        np.testing.assert_array_equal(dist.numpy(), want["dist"], err_msg=str(params))
        np.testing.assert_array_equal(idx.numpy(), want["idx"], err_msg=str(params))
