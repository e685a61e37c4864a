"""Reductions over gathered rows at tile speed (pgpu-pack-rows' packed reductions, issue 42 "Data-dependent
access", corpus 222_bpr_loss): a kernel-level reduction over members whose element reduces a row reached
through an index read per member (the BPR loss: mean over triples of log-sigmoid(<U[u], I[p] - I[n]>)) walks
its members ROWS at a time: the [ROWS] indices are read as vectors, the rows gathered as [ROWS, BLOCK]
tiles, the row reductions run over axis 1 and the members' values are combined over axis 0 (rows past the
range add the identity); a row wider than BLOCK keeps the member-by-member walk. Differential: Triton
under TRITON_INTERPRET=1 against the KIR interpreter at odd shapes (N 0, 1, 17, 31; D 1, 7, 64, 130), at
the call's defaults and at bindings that run both paths, split or not, the last trip part empty."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def bpr(users: T.In[T.f32, ("U", "D")], items: T.In[T.f32, ("I", "D")], triples: T.In[T.i32, ("N", 3)],
        loss: T.Out[T.f32, (1,)]):
    N = triples.shape[0]
    trips, dims = T.domain(0, N), T.domain(0, users.shape[1])
    u = users[triples[trips, 0], dims]
    pos = items[triples[trips, 1], dims]
    neg = items[triples[trips, 2], dims]
    x = T.sum(u * (pos - neg), axis=1)
    loss[0] = -T.sum(T.minimum(x, 0.0) - T.log1p(T.exp(-abs(x)))) / T.cast(N, T.f32)


@tessel.kernel
def widest_gathered_row(x: T.In[T.f32, ("M", "D")], idx: T.In[T.i32, ("N",), T.Range(0, "M")],
                        out: T.Out[T.f32, (1,)]):
    rows, dims = T.domain(0, idx.shape[0]), T.domain(0, x.shape[1])
    out[0] = T.max(T.sum(x[idx[rows], dims] * x[idx[rows], dims], axis=1))


def _params(kernel):
    return next(l for l in kernel.source().split("\n") if "_PARAMS = {" in l)


def test_gathered_row_reductions_take_rows_a_step():
    assert "'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1)" in _params(bpr)
    src = bpr.source(params={"ROWS": 8, "BLOCK": 64})
    # the [ROWS, BLOCK] gather through the [ROWS] indices, the row sums over axis 1, the members' over 0
    assert "[:, None], [8, 64])" in src and "tl.sum(" in src and ", 1)" in src and ", 0)" in src


BINDINGS = [None, {"ROWS": 4, "BLOCK": 16, "FOLD_SPLIT": 2}, {"ROWS": 8, "BLOCK": 64, "FOLD_SPLIT": 1},
            {"ROWS": 128, "BLOCK": 128, "FOLD_SPLIT": 4}]


DEEP = pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP=1 runs the full matrix")
# Cheap: each D's packed path (1, 7, 64) and the member walk (130 > BLOCK) once; the rest under TESSEL_DEEP.
CASES = [(1, 1), (17, 7), (31, 64), (5, 130)] + [pytest.param(n, d, marks=DEEP) for n, d in
                                                 [(1, 64), (1, 130), (17, 1), (17, 64), (31, 1), (31, 7), (31, 130)]]


@pytest.mark.parametrize("n,d", CASES)
def test_bpr_agrees_with_the_interpreter(n, d, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(n * 1000 + d)
    U, I = 5, 11
    users = (0.3 * rng.standard_normal((U, d))).astype(np.float32)
    items = (0.3 * rng.standard_normal((I, d))).astype(np.float32)
    triples = np.stack([rng.integers(0, U, n), rng.integers(0, I, n), rng.integers(0, I, n)], 1).astype(np.int32)
    want = bpr.run_interp(shapes={}, inputs=dict(users=users, items=items, triples=triples))["loss"]
    for params in BINDINGS:
        loss = torch.full((1,), float("nan"))
        args = (torch.from_numpy(users), torch.from_numpy(items), torch.from_numpy(triples), loss)
        if params is None:
            bpr(*args)
        else:
            bpr.launch(*args, params=params)
        np.testing.assert_allclose(loss.numpy(), want, rtol=1e-4, atol=1e-5, err_msg=str(params))


@pytest.mark.parametrize("n,d", [(0, 7), (31, 1), (17, 7)] + [pytest.param(n, d, marks=DEEP) for n, d in
                                                              [(1, 1), (1, 130), (31, 130), (0, 130)]])
def test_a_max_over_gathered_rows_agrees(n, d, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(n * 100 + d)
    M = 13
    x = rng.standard_normal((M, d)).astype(np.float32)
    idx = rng.integers(0, M, n).astype(np.int32)
    want = widest_gathered_row.run_interp(shapes={}, inputs=dict(x=x, idx=idx))["out"]
    for params in BINDINGS:
        out = torch.full((1,), float("nan"))
        args = (torch.from_numpy(x), torch.from_numpy(idx), out)
        if params is None:
            widest_gathered_row(*args)
        else:
            widest_gathered_row.launch(*args, params=params)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6, err_msg=str(params))
