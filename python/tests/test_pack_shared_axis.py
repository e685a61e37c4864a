"""Rows packed along the axis whose reads they then share (pgpu-pack-rows' `sharedAxis`, issue 41, corpus
278): bins[n, f] counts the cut points cuts[f, :] at most x[n, f]; a program owns ROWS consecutive n of one
f and reads the feature's cut points once, where the row-major order (ROWS consecutive f of one n) read a
row of cut points per row. Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter at odd
shapes (no rows, one, primes; cut-point rows that fit BLOCK, the staged path, and that do not, the blocked
path), NaN and on-a-cut values, at the call's defaults and bindings whose programs end past the last row;
a group of three axes (the two others decoded in a program). The case where the shared read is tiny and the
row-major order stays is in the lit test (pgpu-pack-rows-shared-axis.mlir)."""
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


def _programs(kernel, rows, **extents):
    """The launch's program count at ROWS = `rows` (the generated `<kernel>_PROGRAMS`'s expression)."""
    src = kernel.source()
    body = re.search(rf"def {kernel.name}_PROGRAMS\(p, _v\):\n.*\n\s*return (.*)\n", src).group(1)

    class View:
        def __init__(self, *shape):
            self.shape = shape
    views = {"x": View(*extents["x"])}
    return eval(body, {"max": max}, {"p": {"ROWS": rows}, "_v": views})  # noqa: S307


def test_rows_run_along_the_axis_the_cut_points_do_not_depend_on():
    # ROWS consecutive n of one f: ceil(N / ROWS) x F programs (row-major: ceil(N x F / ROWS)).
    assert _programs(bin_features, 4, x=(67, 13)) == 17 * 13
    assert _programs(bin_batched, 4, x=(2, 67, 13)) == 2 * 17 * 13


def _inputs(rng, lead, f, nb):
    x = rng.standard_normal((*lead, f)).astype(np.float32)
    cuts = np.sort(rng.standard_normal((f, nb)), axis=1).astype(np.float32)
    if x.size and nb:
        x.reshape(-1, f)[0, 0] = cuts[0, nb // 2]   # exactly on a cut: counted
        x.reshape(-1, f)[-1, f - 1] = np.nan         # past every cut
    return x, cuts


# The call's defaults; cut-point rows in one 32-lane block or in 16-lane blocks (the blocked path for NB > 16),
# programs whose rows end past N.
BINDINGS = [None, {"ROWS": 4, "BLOCK": 32}, {"ROWS": 8, "BLOCK": 16}]


DEEP = pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP: larger shapes")


@pytest.mark.parametrize("n,f,nb", [(0, 3, 7), (1, 1, 1), (5, 3, 7), (11, 2, 37),
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
    # 1M rows of 128 features, 255 cut points: BLOCK covers the cut points, ROWS 16 (a 16 x 256 tile):
    # 8M programs of 16 rows of one feature.
    x = torch.empty((1 << 20, 128), device="meta")
    cuts = torch.empty((128, 255), device="meta")
    bins = torch.empty((1 << 20, 128), dtype=torch.int32, device="meta")
    d = bin_features.call_defaults(x, cuts, bins)
    assert (d["BLOCK"], d["ROWS"]) == (256, 16)
    assert _programs(bin_features, 16, x=(1 << 20, 128)) == (1 << 16) * 128
