"""Slices of a domain combine element-wise (issue 47): `dims[a:b]` of a step-1 domain is a domain of
its own length re-based at 0, so it pairs by position with any step-1 domain or slice whose length
has the same expression (`dims[0:H]`, `dims[H:2 * H]`, `T.domain(0, H)`, `cos.domain(1)` over "H").
Rotate-half rotary embedding (x [B, H, S, D] f16, cos/sin [S, D/2]) is checked against NumPy on the
KIR interpreter and through Triton under TRITON_INTERPRET=1 at odd shapes; lengths that differ are a
located error naming the expression and both lengths."""
import os

import numpy as np
import pytest

import tessel
import tessel.language as T
from _misuse import expect_error


@tessel.kernel
def rope_rows(x: T.In[T.f16, ("B", "NH", "S", "D")], cos: T.In[T.f16, ("S", "D2")],
              sin: T.In[T.f16, ("S", "D2")], y: T.Out[T.f16, ("B", "NH", "S", "D")]):
    """One (b, h, s) row per member; the halves are slices of `dims`, the tables over "D2"."""
    B, NH, S, D = x.shape
    D2 = T.extent("D2")
    half = cos.domain(1)
    dims = T.domain(0, D)
    for b, h, s in T.parallel(T.domain(0, B), T.domain(0, NH), T.domain(0, S)):
        x1 = T.cast(x[b, h, s, dims[0:D2]], T.f32)
        x2 = T.cast(x[b, h, s, dims[D2:2 * D2]], T.f32)
        c = T.cast(cos[s, half], T.f32)
        sn = T.cast(sin[s, half], T.f32)
        y[b, h, s, dims[0:D2]] = T.cast(x1 * c - x2 * sn, T.f16)
        y[b, h, s, dims[D2:2 * D2]] = T.cast(x2 * c + x1 * sn, T.f16)


@tessel.kernel
def rope_tiles(x: T.In[T.f16, ("B", "NH", "S", "D")], cos: T.In[T.f16, ("S", "D2")],
               sin: T.In[T.f16, ("S", "D2")], y: T.Out[T.f16, ("B", "NH", "S", "D")]):
    """A [S, D/2] tile per (b, h); the half length is D // 2, the tables read over T.domain(0, D // 2)."""
    B, NH, S, D = x.shape
    H = D // 2
    dims, seq = T.domain(0, D), T.domain(0, S)
    lo, hi = dims[0:H], dims[H:2 * H]
    for b, h in T.parallel(T.domain(0, B), T.domain(0, NH)):
        x1 = T.cast(x[b, h, seq, lo], T.f32)
        x2 = T.cast(x[b, h, seq, hi], T.f32)
        c = T.cast(cos[seq, T.domain(0, H)], T.f32)
        sn = T.cast(sin[seq, T.domain(0, H)], T.f32)
        y[b, h, seq, lo] = T.cast(x1 * c - x2 * sn, T.f16)
        y[b, h, seq, hi] = T.cast(x2 * c + x1 * sn, T.f16)


SHAPES = [dict(B=1, NH=1, S=1, D=2, D2=1), dict(B=2, NH=3, S=7, D=6, D2=3), dict(B=1, NH=2, S=13, D=10, D2=5),
          dict(B=3, NH=1, S=17, D=34, D2=17)]


def reference(x, cos, sin):
    x = x.astype(np.float64)
    h = cos.shape[1]
    c, s = cos.astype(np.float64), sin.astype(np.float64)
    x1, x2 = x[..., :h], x[..., h:2 * h]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)


@pytest.mark.parametrize("kernel", [rope_rows, rope_tiles], ids=["rows", "tiles"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_rotate_half_matches_numpy_on_the_interpreter(kernel, shape):
    out = kernel.run_interp(shapes=shape, seed=shape["S"])
    assert not np.all(out["x.in"] == 0)
    want = reference(out["x.in"], out["cos.in"], out["sin.in"])
    np.testing.assert_allclose(out["y"].astype(np.float64), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("kernel", [rope_rows, rope_tiles], ids=["rows", "tiles"])
@pytest.mark.parametrize("shape", SHAPES[:3], ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_rotate_half_through_triton_matches_the_interpreter(kernel, shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    torch = pytest.importorskip("torch")
    ref = kernel.run_interp(shapes=shape, seed=shape["S"])
    y = torch.zeros(ref["y"].shape, dtype=torch.float16)
    kernel(*(torch.from_numpy(ref[f"{n}.in"]) for n in ("x", "cos", "sin")), y)
    np.testing.assert_array_equal(y.numpy(), ref["y"])


def test_slices_of_one_length_computed_twice_pair():
    """`N - 1` written twice gives two index values; their slices still have one length."""
    @tessel.kernel
    def tail(x: T.In[T.f32, ("N",)], y: T.InOut[T.f32, ("N",)]):
        N = x.shape[0]
        cols = T.domain(0, N)
        y[cols[N - 1:N]] = x[cols[N - 1:N]] * 2.0
        y[cols[0:1]] = x[cols[N - 1:N]] + y[cols[0:1]]     # first += last, by position
    for n in (1, 2, 7):
        out = tail.run_interp(shapes={"N": n}, seed=n)
        want = out["y.in"].copy()
        want[-1] = 2.0 * out["x.in"][-1]
        want[0] = out["x.in"][-1] + want[0]
        np.testing.assert_allclose(out["y"], want, rtol=1e-6)


def test_misuse_halves_of_different_lengths():
    """[0, D//2) and [D//2, D) differ for odd D: an error naming the expression and both lengths."""
    @tessel.kernel
    def k(x: T.In[T.f32, ("S", "D")], y: T.Out[T.f32, ("S", "D")]):
        S, D = x.shape
        dims = T.domain(0, D)
        for s in T.parallel(T.domain(0, S)):
            x1 = x[s, dims[0:D // 2]]
            x2 = x[s, dims[D // 2:D]]
            y[s, dims[0:D // 2]] = x1 * x2  # <- error
    err = expect_error(k, "`x1 * x2`: mismatched extents: one operand is over ([0, D)[0:D//2]) and another over "
                          "([0, D)[D//2:D]); they differ at axis 0: [0, D)[0:D//2] has D//2 members, "
                          "[0, D)[D//2:D] has D - D//2 members")
    assert err.col == 36 and "%" not in err.message, err


def test_misuse_slice_against_an_independent_symbol():
    @tessel.kernel
    def k(x: T.In[T.f32, ("S", "D")], cos: T.In[T.f32, ("S", "D2")], y: T.Out[T.f32, ("S", "D")]):
        S, D = x.shape
        dims, seq = T.domain(0, D), T.domain(0, S)
        x1 = x[seq, dims[0:D // 2]]
        y[seq, dims[0:D // 2]] = x1 * cos[seq, :]  # <- error
    expect_error(k, "`x1 * cos[seq, :]`: mismatched extents: one operand is over ([0, S), [0, D)[0:D//2]) and "
                    "another over ([0, S), [0, D2)); they differ at axis 1: [0, D)[0:D//2] has D//2 members, "
                    "[0, D2) has D2 members")


def test_misuse_store_through_a_slice_of_another_length():
    @tessel.kernel
    def k(x: T.In[T.f32, ("D",)], y: T.Out[T.f32, ("D",)]):
        D = x.shape[0]
        dims = T.domain(0, D)
        y[dims[1:D]] = x[dims[0:D // 2]]  # <- error
    expect_error(k, "mismatched extents: the value is over ([0, D)[0:D//2]) but the coordinates are over "
                    "([0, D)[1:D]); they differ at axis 0: [0, D)[0:D//2] has D//2 members, [0, D)[1:D] has D - 1 "
                    "members")


def test_broadcast_prefers_the_same_domain_then_pairs_a_slice():
    """A lower-rank operand takes the axis of its own domain when there is one (as before slices
    paired), and a slice's axis only when no axis has its domain."""
    @tessel.kernel
    def k(x: T.In[T.f32, ("M", "N")], v: T.In[T.f32, ("N",)], w: T.In[T.f32, ("N",)],
          y: T.Out[T.f32, ("M", "N")], z: T.Out[T.f32, ("M", "N")]):
        M, N = x.shape
        rows, cols = T.domain(0, M), T.domain(0, N)
        tile = x[rows, cols]
        y[rows, cols] = tile * v[cols]                           # same domain: dims [1]
        z[rows, cols[0:N]] = x[rows, cols[0:N]] * w[cols]        # a slice of N members: dims [1]
    text = k.kir()
    assert text.count("dims [1]") == 2, text
    out = k.run_interp(shapes={"M": 3, "N": 5}, seed=2)
    np.testing.assert_allclose(out["y"], out["x.in"] * out["v.in"][None, :], rtol=1e-6)
    np.testing.assert_allclose(out["z"], out["x.in"] * out["w.in"][None, :], rtol=1e-6)


def test_misuse_messages_name_loaded_bounds():
    """A runtime bound is described as the author wrote it (`offsets[b]`), not as an SSA name."""
    @tessel.kernel
    def k(offsets: T.In[T.i32, ("NB",)], x: T.In[T.f32, ("NI",)], y: T.Out[T.f32, ("NB", "NI")]):
        NI = x.shape[0]
        items = T.domain(0, NI)
        for b in T.parallel(T.domain(0, offsets.shape[0])):
            bag = items[offsets[b]:NI]
            y[b, items] = x[bag]  # <- error
    err = expect_error(k, "the value is over ([0, NI)[offsets[b]:NI]) but the coordinates are over ([0, NI)); "
                          "they differ at axis 0: [0, NI)[offsets[b]:NI] has NI - offsets[b] members")
    assert "%" not in err.message and "@" not in err.message, err
