"""A per-row histogram stored at each member's row of a kernel-level buffer is counted once per source
element into kept workspace (HistogramMerge.cpp), not once per bin; a later workset that looks its
elements up in a kernel-level buffer and reduces nothing runs as a segment after a wait, in parallel
(PhasedSums.cpp), not whole in the last program (corpus 233, histogram equalization). Checked at odd
shapes (empty, one element, primes, non-multiples of every block) against NumPy through Triton under
TRITON_INTERPRET=1, called twice (the kept rows and the ticket return to zero), and the structure the
remarks and the generated source say."""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
from conftest import call_twice_against  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def rank_lookup(x: T.In[T.i32, ("B", "L"), T.Range(0, 16)], out: T.Out[T.i32, ("B", "L")]):
    # each value's rank among its row's values: the count of smaller ones, through a per-row table
    B, L = x.shape
    rows, cols, bins = T.domain(0, B), T.domain(0, L), T.domain(0, 16)
    counts = T.buffer(over=(rows, bins), dtype=T.i32, init=None)
    table = T.buffer(over=(rows, bins), dtype=T.i32, init=None)
    for b in T.parallel(rows):
        counts[b, bins] = T.histogram(x[b, cols], bins)
        h = counts[b, bins]
        v = T.broadcast(T.indices(bins), over=(bins, bins), dims=[0])
        j = T.broadcast(T.indices(bins), over=(bins, bins), dims=[1])
        table[b, bins] = T.sum(T.where(j < v, T.broadcast(h, over=(bins, bins), dims=[1]), 0), axis=1)
    for b, i in T.parallel(rows, cols):
        out[b, i] = table[b, x[b, i]] * 3 + 1


def _want(ins):
    x = ins["x.in"]
    out = np.zeros_like(x)
    for b in range(x.shape[0]):
        hist = np.bincount(x[b], minlength=16)
        below = np.concatenate([[0], np.cumsum(hist)[:-1]])
        out[b] = below[x[b]] * 3 + 1
    return {"out": out}


DEEP = pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP=1: more shapes")


@pytest.mark.parametrize("B,L", [(0, 3), (1, 1), (3, 37), pytest.param(2, 0, marks=DEEP),
                                 pytest.param(2, 131, marks=DEEP)])
def test_matches_numpy_twice(B, L, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(B * 1000 + L)

    def make():
        return [torch.from_numpy(rng.integers(0, 16, (B, L)).astype(np.int32)), torch.zeros((B, L), dtype=torch.int32)]
    call_twice_against(rank_lookup, make, ["x.in", "out"], _want, rtol=0, atol=0)


def test_counted_once_and_looked_up_in_parallel(tessel_bin, tmp_path):
    source = tmp_path / "rank_lookup.mlir"
    source.write_text(rank_lookup.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--target=triton", "--emit=source", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "its instances waiting until every earlier program instance has arrived" in res.stderr
    assert "runs whole in the last program instance" not in res.stderr
    assert "tl.histogram(" in res.stdout  # each row counted into a privatized fragment, once
    # the lookup's load of the table sits in the waiting segment, not after the last arrival
    assert "tl.load(arg" in res.stdout.split("_arrived", 1)[0].split("while _go", 1)[1]
