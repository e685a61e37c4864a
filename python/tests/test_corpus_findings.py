"""Compiler gaps a corpus author found writing bench/corpus/67-76 from docs/language.md alone (issues 41, 47),
each checked against NumPy (float64 or exact integers) on the KIR interpreter and through Triton under
TRITON_INTERPRET=1 at odd shapes (1, primes, non-multiples of every block size), random nonzero inputs:
- two row sums of one broadcast product (the first a contraction after kir-contract-products) in a
  kernel-level store: kir-row-parallels spells the member's dot product as a sum (no rank-0 kir.contract);
- an int8 x int8 -> i32 matmul tiles as a contraction (tl.dot on the i8 tiles, i32 accumulator), exact
  at the extremes -128/127;
- an in-place rotate-half in a member (two stores to disjoint halves of one view, each reading both
  halves loaded before the stores) constructs as one element loop; a real read after a write is refused."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def two_row_sums(x: T.In[T.f32, ("M", "N")], w: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    g = w[cols] * x[rows, cols]
    y[rows, cols] = T.sum(g, axis=1) + T.sum(g * x[rows, cols], axis=1) * x[rows, cols]


@pytest.mark.parametrize("M,N", [(1, 1), (3, 7), (17, 131), (5, 1031)])
def test_two_row_sums_of_a_broadcast_product(M, N, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(M * 1000 + N)
    x = (rng.standard_normal((M, N)) + 0.25).astype(np.float32)
    w = (rng.standard_normal(N) + 0.5).astype(np.float32)
    xd, wd = x.astype(np.float64), w.astype(np.float64)
    g = wd[None, :] * xd
    want = g.sum(1, keepdims=True) + (g * xd).sum(1, keepdims=True) * xd
    got = two_row_sums.run_interp(shapes=dict(M=M, N=N), inputs=dict(x=x, w=w))["y"]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-4, atol=1e-4 * np.sqrt(N))
    y = torch.full((M, N), float("nan"), dtype=torch.float32)
    two_row_sums(torch.tensor(x), torch.tensor(w), y)
    np.testing.assert_allclose(y.numpy().astype(np.float64), want, rtol=1e-4, atol=1e-4 * np.sqrt(N))
    src = two_row_sums.source("triton")
    assert "tl.sum" in src or "tl.reduce" in src


@tessel.kernel
def int8_matmul(a: T.In[T.i8, ("M", "K")], b: T.In[T.i8, ("K", "N")], c: T.Out[T.i32, ("M", "N")]):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    c[rows, cols] = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.i32)


@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (3, 5, 7), (17, 67, 131), (33, 19, 64)])
def test_int8_contraction_tiles_exactly(M, N, K, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(M * N + K)
    a = rng.integers(-128, 128, size=(M, K))
    b = rng.integers(-128, 128, size=(K, N))
    a[0, :] = -128          # the extremes: K * 2^14 stays exact in i32
    b[:, 0] = -128
    if K > 1:
        a[-1, 1], b[1, -1] = 127, 127
    a, b = a.astype(np.int8), b.astype(np.int8)
    want = a.astype(np.int64) @ b.astype(np.int64)
    got = int8_matmul.run_interp(shapes=dict(M=M, N=N, K=K), inputs=dict(a=a, b=b))["c"]
    np.testing.assert_array_equal(got.astype(np.int64), want)
    c = torch.full((M, N), -7, dtype=torch.int32)
    int8_matmul(torch.tensor(a), torch.tensor(b), c)
    np.testing.assert_array_equal(c.numpy().astype(np.int64), want)


def test_int8_contraction_is_a_dot_of_the_i8_tiles():
    src = int8_matmul.source("triton")
    assert "tl.dot(" in src, src


@tessel.kernel
def rotate_half_inplace(x: T.InOut[T.f32, ("R", "D")], c: T.In[T.f32, ("R", "H")], s: T.In[T.f32, ("R", "H")]):
    R, D = x.shape
    H = c.shape[1]
    dims, half = T.domain(0, D), T.domain(0, H)
    lo, hi = dims[0:H], dims[H:2 * H]
    for r in T.parallel(T.domain(0, R)):
        x1, x2 = x[r, lo], x[r, hi]
        cc, ss = c[r, half], s[r, half]
        x[r, lo] = x1 * cc - x2 * ss
        x[r, hi] = x2 * cc + x1 * ss


@pytest.mark.parametrize("R,H", [(1, 1), (7, 5), (13, 17), (3, 67)])
def test_inplace_rotate_half_keeps_the_old_values(R, H, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(R * 100 + H)
    x = rng.standard_normal((R, 2 * H)).astype(np.float32)
    c = rng.standard_normal((R, H)).astype(np.float32)
    s = rng.standard_normal((R, H)).astype(np.float32)
    x1, x2 = x[:, :H].astype(np.float64), x[:, H:].astype(np.float64)
    want = np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=1)
    got = rotate_half_inplace.run_interp(shapes=dict(R=R, D=2 * H, H=H), inputs=dict(x=x, c=c, s=s))["x"]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-5, atol=1e-5)
    xt = torch.tensor(x)
    rotate_half_inplace(xt, torch.tensor(c), torch.tensor(s))
    np.testing.assert_allclose(xt.numpy().astype(np.float64), want, rtol=1e-5, atol=1e-5)


@tessel.kernel
def shifted_inplace(x: T.InOut[T.f32, ("R", "D")]):
    R, D = x.shape
    dims = T.domain(0, D)
    lo, hi = dims[0:D - 1], dims[1:D]
    for r in T.parallel(T.domain(0, R)):
        a = x[r, lo]
        x[r, hi] = a * 2.0
        x[r, lo] = a + 1.0


def test_overlapping_inplace_stores_are_refused():
    """Must not fire: the stores' slices overlap ([0, D-1) and [1, D)), so one position would write what
    another reads; construction keeps refusing the use after the store, with its location."""
    with pytest.raises(Exception, match="used after a store to the same view"):
        shifted_inplace.source("triton")
