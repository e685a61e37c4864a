"""Members tiled over the axis whose walked reads they share (pgpu-tile-shared-reductions, corpus 278; before
it pgpu-pack-rows' `sharedAxis`, issue 41): bins[n, f] counts the cut points cuts[f, :] at most x[n, f]; a
program owns [TILE_M, TILE_N] members (n, f) and walks the cut points serially, each trip's [TILE_N] cut
points read once for its TILE_M rows. Differential: Triton under TRITON_INTERPRET=1 against the KIR
interpreter at odd shapes (no rows, one, primes; no cut points), NaN and on-a-cut values, at the call's
defaults and bindings whose tiles end past the last row and feature; a group of three axes (the leading one
a member of the program). pgpu-pack-rows' shared axis keeps its lit test (pgpu-pack-rows-shared-axis.mlir)."""
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def bin_features(x: T.In[T.f32, ("N", "F")], cuts: T.In[T.f32, ("F", "NB")], bins: T.Out[T.i32, ("N", "F")]):
    N, F = x.shape
    NB = cuts.shape[1]
    feats, cs = T.domain(0, F), T.domain(0, NB)
    for n in T.parallel(T.domain(0, N)):
        v = x[n, feats]
        past = (cuts[feats, cs] <= v) | (v != v)
        bins[n, feats] = T.sum(T.cast(past, T.i32), axis=1)


@tessel.kernel
def bin_batched(x: T.In[T.f32, ("B", "N", "F")], cuts: T.In[T.f32, ("F", "NB")],
                bins: T.Out[T.i32, ("B", "N", "F")]):
    B, N, F = x.shape
    NB = cuts.shape[1]
    cs = T.domain(0, NB)
    for b, n, f in T.parallel(T.domain(0, B), T.domain(0, N), T.domain(0, F)):
        bins[b, n, f] = T.sum(T.cast(cuts[f, cs] <= x[b, n, f], T.i32))


def _programs(kernel, tile_m, tile_n, **extents):
    """The launch's program count at [TILE_M, TILE_N] (the generated `<kernel>_PROGRAMS`'s expression)."""
    src = kernel.source()
    body = re.search(rf"def {kernel.name}_PROGRAMS\(p, _v\):\n.*\n\s*return (.*)\n", src).group(1)

    class View:
        def __init__(self, *shape):
            self.shape = shape
    views = {"x": View(*extents["x"])}
    return eval(body, {"max": max}, {"p": {"TILE_M": tile_m, "TILE_N": tile_n}, "_v": views})  # noqa: S307


def test_programs_own_tiles_of_members():
    # ceil(N / TILE_M) x ceil(F / TILE_N) programs (times the leading axis's extent).
    assert _programs(bin_features, 4, 16, x=(67, 13)) == 17 * 1
    assert _programs(bin_batched, 4, 16, x=(2, 67, 13)) == 2 * 17 * 1
    assert _programs(bin_features, 128, 32, x=(1 << 20, 128)) == (1 << 13) * 4
    src = bin_features.source()
    assert "tl.sum" not in src  # no cross-lane reduction: the cut points are walked serially


def _inputs(rng, lead, f, nb):
    x = rng.standard_normal((*lead, f)).astype(np.float32)
    cuts = np.sort(rng.standard_normal((f, nb)), axis=1).astype(np.float32)
    if x.size and nb:
        x.reshape(-1, f)[0, 0] = cuts[0, nb // 2]   # exactly on a cut: counted
        x.reshape(-1, f)[-1, f - 1] = np.nan         # past every cut
    return x, cuts


# The call's defaults; tiles whose rows end past N and whose features end past F.
BINDINGS = [None, {"TILE_M": 4, "TILE_N": 16}, {"TILE_M": 1, "TILE_N": 32}]


DEEP = pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP: larger shapes")


@pytest.mark.parametrize("n,f,nb", [(0, 3, 7), (1, 1, 1), (5, 3, 7), (11, 2, 37), (3, 17, 0),
                                    pytest.param(67, 13, 31, marks=DEEP), pytest.param(37, 2, 129, marks=DEEP)])
def test_bin_features_agree_with_the_interpreter(n, f, nb, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x, cuts = _inputs(np.random.default_rng(n * 1000 + f * 10 + nb), (n,), f, nb)
    want = bin_features.run_interp(shapes={}, inputs=dict(x=x, cuts=cuts))["bins"]
    np.testing.assert_array_equal(want, np.stack([np.searchsorted(cuts[j], x[:, j], side="right")
                                                  for j in range(f)], axis=1).reshape(n, f))
    for params in BINDINGS:
        bins = torch.full((n, f), -1, dtype=torch.int32)
        if params is None:
            bin_features(torch.from_numpy(x), torch.from_numpy(cuts), bins)
        else:
            bin_features.launch(torch.from_numpy(x), torch.from_numpy(cuts), bins, params=params)
        np.testing.assert_array_equal(bins.numpy(), want, err_msg=str(params))


@pytest.mark.parametrize("b,n,f,nb", [(1, 1, 1, 1), (2, 7, 3, 19), pytest.param(3, 13, 5, 37, marks=DEEP)])
def test_bin_batched_agrees_with_the_interpreter(b, n, f, nb, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x, cuts = _inputs(np.random.default_rng(b * 100 + n * 10 + nb), (b, n), f, nb)
    want = bin_batched.run_interp(shapes={}, inputs=dict(x=x, cuts=cuts))["bins"]
    for params in BINDINGS:
        bins = torch.full((b, n, f), -1, dtype=torch.int32)
        if params is None:
            bin_batched(torch.from_numpy(x), torch.from_numpy(cuts), bins)
        else:
            bin_batched.launch(torch.from_numpy(x), torch.from_numpy(cuts), bins, params=params)
        np.testing.assert_array_equal(bins.numpy(), want, err_msg=str(params))


def test_call_defaults_at_the_bench_shape():
    # 1M rows of 128 features, 255 cut points: [128, 32] tiles of members, 32k programs each walking the
    # 255 cut points of its 32 features once.
    x = torch.empty((1 << 20, 128), device="meta")
    cuts = torch.empty((128, 255), device="meta")
    bins = torch.empty((1 << 20, 128), dtype=torch.int32, device="meta")
    d = bin_features.call_defaults(x, cuts, bins)
    assert (d["TILE_M"], d["TILE_N"]) == (128, 32)


@tessel.kernel
def spline_features(x: T.In[T.f32, ("N", "F")], knots: T.In[T.f32, ("F", "K")], slopes: T.In[T.f32, ("F", "K")],
                    y: T.Out[T.f32, ("N", "F")]):
    # A piecewise-linear feature map: two shared rows (knots, slopes) per feature, a float sum.
    N, F = x.shape
    K = knots.shape[1]
    feats, ks = T.domain(0, F), T.domain(0, K)
    for n in T.parallel(T.domain(0, N)):
        v = x[n, feats]
        y[n, feats] = T.sum(T.maximum(v - knots[feats, ks], 0.0) * slopes[feats, ks], axis=1)


@pytest.mark.parametrize("n,f,k", [(0, 3, 5), (1, 1, 1), (7, 19, 3), (13, 2, 0)])
def test_spline_features_agree_with_the_interpreter(n, f, k, tmp_path, monkeypatch):
    # Another computation of the shape: per-member values against rows every n shares, summed in f32.
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    assert "TILE_M" in spline_features.source() and "tl.sum" not in spline_features.source()
    rng = np.random.default_rng(n * 100 + f * 10 + k)
    x = rng.standard_normal((n, f)).astype(np.float32)
    knots = rng.standard_normal((f, k)).astype(np.float32)
    slopes = rng.standard_normal((f, k)).astype(np.float32)
    want = spline_features.run_interp(shapes={}, inputs=dict(x=x, knots=knots, slopes=slopes))["y"]
    for params in BINDINGS:
        y = torch.full((n, f), -1.0, dtype=torch.float32)
        args = (torch.from_numpy(x), torch.from_numpy(knots), torch.from_numpy(slopes), y)
        if params is None:
            spline_features(*args)
        else:
            spline_features.launch(*args, params=params)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5, err_msg=str(params))
