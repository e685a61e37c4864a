"""Gathered rows at tile speed (pgpu-pack-rows, issue "Data-dependent access at tile speed", corpus
100_sddmm_coo): a `T.parallel` over members whose body reduces a row reached through an index read per
member (vals[e] = dot(A[rows[e], :], B[cols[e], :]), y[e] = sum(x[idx[e], :])) runs ROWS members per
program: the program's [ROWS] indices are read as a vector and the rows gathered as [ROWS, BLOCK] tiles on
the staged path (the row fits one block), one member after the other on the blocked path. Differential:
Triton under TRITON_INTERPRET=1 against the KIR interpreter on random inputs at odd shapes (NNZ 0, 1 and
primes; K 1, 3, 129), with duplicate and out-of-order indices, at the call's defaults and at bindings that
run both paths with several members per program (the last program part empty)."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def sddmm(A: T.In[T.f16, ("M", "K")], B: T.In[T.f16, ("N", "K")],
          rows: T.In[T.i32, ("NNZ",), T.Range(0, "M")], cols: T.In[T.i32, ("NNZ",), T.Range(0, "N")],
          vals: T.Out[T.f32, ("NNZ",)]):
    ks = T.domain(0, A.shape[1])
    for e in T.parallel(T.domain(0, rows.shape[0])):
        vals[e] = T.dot(A[rows[e], ks], B[cols[e], ks], acc_dtype=T.f32)


@tessel.kernel
def gathered_sum(x: T.In[T.f32, ("M", "K")], idx: T.In[T.i32, ("E",), T.Range(0, "M")], y: T.Out[T.f32, ("E",)]):
    ks = T.domain(0, x.shape[1])
    for e in T.parallel(T.domain(0, idx.shape[0])):
        y[e] = T.sum(x[idx[e], ks])


def _params(kernel):
    return next(l for l in kernel.source().split("\n") if "_PARAMS = {" in l)


def test_gathered_rows_take_rows_per_program():
    assert "'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1)" in _params(sddmm)
    src = sddmm.source()
    # the row reduction over axis 1 (a plain sum is spelled tl.sum; another combine, tl.reduce)
    assert "tl.sum(" in src and ", 1)" in src or ", 1, _sddmm_combine" in src


BINDINGS = [None, {"ROWS": 4, "BLOCK": 128}, {"ROWS": 8, "BLOCK": 64}, {"ROWS": 128, "BLOCK": 256}]


def _indices(rng, n, bound):
    """Random indices below `bound`, with duplicates and out of order (n of them)."""
    if n == 0:
        return np.zeros((0,), np.int32)
    i = rng.integers(0, bound, n)
    i[n // 2:] = i[:n - n // 2][::-1]  # repeats, reversed
    return i.astype(np.int32)


@pytest.mark.parametrize("k", [1, 3, 128, 129])
@pytest.mark.parametrize("nnz", [0, 1, 31, 257])
def test_sddmm_agrees_with_the_interpreter(nnz, k, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(nnz * 1000 + k)
    M, N = 7, 5
    A = rng.standard_normal((M, k)).astype(np.float16)
    B = rng.standard_normal((N, k)).astype(np.float16)
    rows, cols = _indices(rng, nnz, M), _indices(rng, nnz, N)
    want = sddmm.run_interp(shapes={}, inputs=dict(A=A, B=B, rows=rows, cols=cols))["vals"]
    for params in BINDINGS:
        vals = torch.full((nnz,), float("nan"))
        args = (torch.from_numpy(A), torch.from_numpy(B), torch.from_numpy(rows), torch.from_numpy(cols), vals)
        if params is None:
            sddmm(*args)
        else:
            sddmm.launch(*args, params=params)
        np.testing.assert_allclose(vals.numpy(), want, rtol=1e-3, atol=1e-3, err_msg=str(params))


@pytest.mark.parametrize("k", [1, 129])
@pytest.mark.parametrize("e", [1, 13, 131])
def test_gathered_sum_agrees_with_the_interpreter(e, k, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(e * 1000 + k)
    x = rng.standard_normal((11, k)).astype(np.float32)
    idx = _indices(rng, e, 11)
    want = gathered_sum.run_interp(shapes={}, inputs=dict(x=x, idx=idx))["y"]
    for params in BINDINGS:
        y = torch.full((e,), float("nan"))
        if params is None:
            gathered_sum(torch.from_numpy(x), torch.from_numpy(idx), y)
        else:
            gathered_sum.launch(torch.from_numpy(x), torch.from_numpy(idx), y, params=params)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5, err_msg=str(params))
