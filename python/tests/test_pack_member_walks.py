"""Rows whose reduction runs over members that each walk the row (pgpu-pack-rows, issue 41, corpus 171): a
nearest-centroid assignment per row, argmin_j sum_d (c[j, d] - x[n, d])^2, runs ROWS rows per program: the
members in order, each a [ROWS, BLOCK] tile of the row block against the member's [BLOCK] row, the argmin
carried as [ROWS] fragments, the row tile read once before the members' loop. Differential: Triton under
TRITON_INTERPRET=1 against the KIR interpreter at odd row counts (1, 7, 131: a last program part empty) and
row lengths (1, 3, 33 fit BLOCK 64: the staged path; 70 does not: the blocked path's loop over the rows), a
constant member count (16) and a runtime one (K: 1, 5); narrow blocks (BLOCK 16 and 32, which pack-rows adds
to BLOCK's candidates: a 32-wide row's call default) on both paths. Must not fire: members whose count depends
on the row. A staged row path holding an author loop (241's bisection on a threshold) packs alike, its carries
[ROWS] fragments."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def nearest16(x: T.In[T.f32, ("N", "D")], c: T.In[T.f32, (16, "D")],
              assign: T.Out[T.i32, ("N",)], dist: T.Out[T.f32, ("N",)]):
    N, D = x.shape
    cents, dims = c.domain(0), T.domain(0, D)
    for n in T.parallel(T.domain(0, N)):
        diff = c[cents, dims] - x[n, dims]
        d2 = T.sum(diff * diff, axis=1)
        best, at = T.argmin(d2)
        dist[n] = best
        assign[n] = T.cast(at, T.i32)


@tessel.kernel
def best_code(x: T.In[T.f32, ("N", "D")], book: T.In[T.f32, ("K", "D")], code: T.Out[T.i32, ("N",)]):
    N, D = x.shape
    codes, dims = book.domain(0), T.domain(0, D)
    for n in T.parallel(T.domain(0, N)):
        score = T.sum(T.abs(book[codes, dims] - x[n, dims]), axis=1)  # a codebook lookup by L1 distance
        best, at = T.argmin(score)
        code[n] = T.cast(at, T.i32)


@tessel.kernel
def ragged_members(x: T.In[T.f32, ("N", "D")], y: T.Out[T.f32, ("N",)]):
    N, D = x.shape
    dims = T.domain(0, D)
    for n in T.parallel(T.domain(0, N)):
        # members 0..n: their count depends on the row
        y[n] = T.max(T.sum(x[T.domain(0, n + 1), dims] * x[n, dims], axis=1))


@tessel.kernel
def bisect_rows(x: T.In[T.f32, ("B", "V")], out: T.Out[T.f32, ("B", "V")], mass: T.f32):
    B, V = x.shape
    vocab = T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        e = T.exp(x[b, vocab] - T.max(x[b, vocab]))
        p = e / T.sum(e)
        lo, hi = T.f32(0.0), T.f32(1.0)
        for it in T.domain(0, 6):  # an author loop over the row's tile, its carries per row (241's bisection)
            mid = 0.5 * (lo + hi)
            enough = T.sum(T.where(p >= mid, p, 0.0)) >= mass
            lo = T.where(enough, mid, lo)
            hi = T.where(enough, hi, mid)
        out[b, vocab] = T.where(p >= lo, p, 0.0)


# Packed rows (the last program part empty at 7 and 131 rows); TESSEL_DEEP adds the call's defaults, ROWS 8
# and the other shapes (each binding compiles and interprets anew: minutes on one core).
DEEP = bool(os.environ.get("TESSEL_DEEP"))
BINDINGS = [None, {"ROWS": 4, "BLOCK": 64}, {"ROWS": 8, "BLOCK": 64}] if DEEP else [{"ROWS": 4, "BLOCK": 64}]


def _params(kernel):
    return next(l for l in kernel.source().split("\n") if "_PARAMS = {" in l)


def test_packs_members_that_walk_the_row():
    assert "'ROWS'" in _params(nearest16) and "'ROWS'" in _params(best_code)
    src = nearest16.source()
    # the row tile is read once per program, before the members' loop
    body = src[src.index("if _G0:"):src.index("else:", src.index("if _G0:"))]
    loop = body.index("for ")
    assert "tl.load(x" in body[:loop] and "tl.load(x" not in body[loop:]
    assert "tl.load(c" in body[loop:]


def test_bisect_rows_agrees_with_the_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    assert "'ROWS'" in _params(bisect_rows)  # an ordered loop in the staged path carries [ROWS] scalars
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 37)).astype(np.float32)
    want = bisect_rows.run_interp(shapes={}, inputs=dict(x=x), scalars=dict(mass=0.7))["out"]
    out = torch.full(x.shape, float("nan"))
    bisect_rows.launch(torch.from_numpy(x), out, mass=0.7, params={"ROWS": 4, "BLOCK": 64})
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-7)


def test_members_of_a_row_dependent_count_stay_one_row_a_program():
    assert "'ROWS'" not in _params(ragged_members)


def test_packed_rows_of_at_most_32_take_a_narrow_block():
    # BLOCK's candidates gain 16 and 32 where rows are packed: a 32-wide row (corpus 171's D = 32) takes a
    # [ROWS, 32] tile at its call's default instead of a half-masked [ROWS, 64] one; a 64-wide row keeps 64.
    assert "'BLOCK': ([16, 32, 64," in _params(nearest16)

    def block(n, d):
        x, c = torch.empty((n, d), device="meta"), torch.empty((16, d), device="meta")
        assign, dist = torch.empty((n,), dtype=torch.int32, device="meta"), torch.empty((n,), device="meta")
        return nearest16.call_defaults(x, c, assign, dist)["BLOCK"]

    assert (block(4194304, 32), block(4194304, 17), block(4194304, 64), block(7, 3)) == (32, 32, 64, 16)


@pytest.mark.parametrize("n,d", [(9, 20)] + ([(37, 20), (131, 32), (7, 3), (1, 1)] if DEEP else []))
def test_nearest16_in_narrow_blocks_agrees_with_the_interpreter(n, d, tmp_path, monkeypatch):
    # BLOCK 32: the staged path, 12 lanes masked (TESSEL_DEEP adds BLOCK 16: rows of 20 take the blocked
    # path, a full block and a partial one); 9 rows in programs of 4 leave the last program one row.
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(n * 100 + d + 7)
    x = rng.standard_normal((n, d)).astype(np.float32)
    c = rng.standard_normal((16, d)).astype(np.float32)
    x[: min(n, 3)] = c[:min(n, 3)]  # points on a centroid: distance exactly 0 (k-means++ seeds are points)
    want = nearest16.run_interp(shapes={}, inputs=dict(x=x, c=c))
    for params in ([{"ROWS": 4, "BLOCK": 16}] if DEEP else []) + [{"ROWS": 4, "BLOCK": 32}]:
        assign, dist = torch.full((n,), -1, dtype=torch.int32), torch.full((n,), float("nan"))
        nearest16.launch(torch.from_numpy(x), torch.from_numpy(c), assign, dist, params=params)
        np.testing.assert_array_equal(assign.numpy(), want["assign"], err_msg=str(params))
        np.testing.assert_allclose(dist.numpy(), want["dist"], rtol=1e-5, atol=1e-5, err_msg=str(params))


@pytest.mark.parametrize("n,d", [(7, 3), (37, 70)] + ([(1, 1), (131, 33), (7, 70)] if DEEP else []))
def test_nearest16_agrees_with_the_interpreter(n, d, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(n * 100 + d)
    x = rng.standard_normal((n, d)).astype(np.float32)
    c = rng.standard_normal((16, d)).astype(np.float32)
    want = nearest16.run_interp(shapes={}, inputs=dict(x=x, c=c))
    for params in BINDINGS:
        assign, dist = torch.full((n,), -1, dtype=torch.int32), torch.full((n,), float("nan"))
        args = (torch.from_numpy(x), torch.from_numpy(c), assign, dist)
        if params is None:
            nearest16(*args)
        else:
            nearest16.launch(*args, params=params)
        np.testing.assert_array_equal(assign.numpy(), want["assign"], err_msg=str(params))
        np.testing.assert_allclose(dist.numpy(), want["dist"], rtol=1e-5, atol=1e-5, err_msg=str(params))


@pytest.mark.parametrize("n,d,k", [(7, 3, 5)] + ([(1, 1, 1), (131, 70, 5), (131, 33, 1)] if DEEP else []))
def test_best_code_agrees_with_the_interpreter(n, d, k, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(n * 100 + d * 10 + k)
    x = rng.standard_normal((n, d)).astype(np.float32)
    book = rng.standard_normal((k, d)).astype(np.float32)
    want = best_code.run_interp(shapes={}, inputs=dict(x=x, book=book))["code"]
    for params in BINDINGS:
        code = torch.full((n,), -1, dtype=torch.int32)
        if params is None:
            best_code(torch.from_numpy(x), torch.from_numpy(book), code)
        else:
            best_code.launch(torch.from_numpy(x), torch.from_numpy(book), code, params=params)
        np.testing.assert_array_equal(code.numpy(), want, err_msg=str(params))
