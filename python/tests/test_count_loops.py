"""A loop's counts of true predicates (pgpu-count-loops, corpus 278, issue 41): the count accumulates in
f32 (a compare into 0.0 / 1.0 and a float add per lane and step, exact in chunks of 2^24 steps) and a
disjunct defined above the loop (x is NaN, x >= cap) is decided once after it (init + trips).
Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter at odd shapes (no rows, one,
primes, no cut points), NaN, infinities and on-a-cut values, unsorted cut points (a count, not a search),
and the call's defaults and bindings whose tiles end past the last row and feature."""
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def count_below(x: T.In[T.f32, ("N", "F")], cuts: T.In[T.f32, ("F", "NB")], bins: T.Out[T.i32, ("N", "F")],
                cap: T.f32):
    # A strict count, or every cut point where the value reaches `cap` (a disjunct invariant per member).
    N, F = x.shape
    NB = cuts.shape[1]
    feats, cs = T.domain(0, F), T.domain(0, NB)
    for n in T.parallel(T.domain(0, N)):
        v = x[n, feats]
        hit = (cuts[feats, cs] < v) | (v >= cap)
        bins[n, feats] = T.sum(T.cast(hit, T.i32), axis=1)


@tessel.kernel
def bin_features(x: T.In[T.f32, ("N", "F")], cuts: T.In[T.f32, ("F", "NB")], bins: T.Out[T.i32, ("N", "F")]):
    N, F = x.shape
    NB = cuts.shape[1]
    feats, cs = T.domain(0, F), T.domain(0, NB)
    for n in T.parallel(T.domain(0, N)):
        v = x[n, feats]
        past = (cuts[feats, cs] <= v) | (v != v)
        bins[n, feats] = T.sum(T.cast(past, T.i32), axis=1)


def _loop(src):
    """The generated kernel's loop over the cut points (its body's lines)."""
    body = re.search(r"\n( +)for v\d+ in tl\.range\([^\n]*\n((?:\1 +[^\n]*\n)+)", src)
    return body.group(2)


def test_counts_accumulate_in_f32_without_the_invariant_disjunct():
    for kernel in (bin_features, count_below):
        src = kernel.source()
        loop = _loop(src)
        assert "tl.float32" in loop and "tl.int32" not in loop, loop
        assert " | " not in loop, loop                  # the NaN / flag disjunct left the loop
        assert "16777216" in src                        # chunks of 2^24 steps


BINDINGS = [None, {"TILE_M": 4, "TILE_N": 16}, {"TILE_M": 1, "TILE_N": 32}]


@pytest.mark.parametrize("n,f,nb", [(0, 3, 7), (1, 1, 1), (5, 3, 0), (11, 2, 37), (7, 17, 5)])
def test_count_below_agrees_with_the_interpreter(n, f, nb, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(n * 1000 + f * 10 + nb)
    x = rng.standard_normal((n, f)).astype(np.float32)
    cuts = rng.standard_normal((f, nb)).astype(np.float32)       # unsorted: a count, not a search
    if x.size and nb:
        x[0, 0] = cuts[0, nb // 2]                               # on a cut: not counted (strict)
        x[-1, -1] = np.nan
        x[n // 2, 0] = np.inf
        cuts[f - 1, 0] = -np.inf
    cap = 1.0
    want = count_below.run_interp(shapes={}, scalars=dict(cap=cap), inputs=dict(x=x, cuts=cuts))["bins"]
    with np.errstate(invalid="ignore"):
        ref = np.where(x >= cap, nb, (cuts[None, :, :] < x[:, :, None]).sum(axis=2)).astype(np.int32)
    np.testing.assert_array_equal(want, ref.reshape(n, f))
    for params in BINDINGS:
        bins = torch.full((n, f), -1, dtype=torch.int32)
        args = (torch.from_numpy(x), torch.from_numpy(cuts), bins)
        if params is None:
            count_below(*args, cap=cap)
        else:
            count_below.launch(*args, cap=cap, params=params)
        np.testing.assert_array_equal(bins.numpy(), want, err_msg=str(params))
