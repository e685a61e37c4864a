"""pgpu-merge-segments: kernel-level statements over one domain (a pixel shuffle's four stores, each
out[n, c, 2h + i, 2w + j] = x[n, 4c + 2i + j, h, w]) were construction's four segments, each decoding
its members' coordinates and writing every other column of `out` from programs a segment apart; they
now run as one execution group, each member's four statements in one program.

Differential: the pgpu interpreter after the whole pipeline, in shuffled program order, computes what
the KIR interpreter computes at odd shapes (0 and 1 members, primes, extents that are no multiple of any
block size) under the smallest and the default bindings; the generated Triton under TRITON_INTERPRET=1
too. Must not merge: statements over different domains, and a member that loops (a row sum) beside a copy.
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T
from conftest import kir_and_pgpu, opt_remarks, shape_arg


@tessel.kernel
def shuffle(x: T.In[T.f32, ("N", "C4", "H", "W")], out: T.Out[T.f32, ("N", "C", "OH", "OW")]):
    N, C4, H, W = x.shape
    C = out.shape[1]
    ns, cs, hs, ws = T.domain(0, N), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    c, h, w = T.indices(cs), T.indices(hs), T.indices(ws)
    for i in range(2):
        for j in range(2):
            out[ns, cs, 2 * h + i, 2 * w + j] = x[ns, 4 * c + (2 * i + j), hs, ws] * (1.0 + i + 2 * j)


@tessel.kernel
def two_domains(x: T.In[T.f32, ("M", "N")], rows: T.Out[T.f32, ("M",)], cols: T.Out[T.f32, ("N",)]):
    """Must not merge: a statement over the rows beside one over the columns (different members)."""
    M, N = x.shape
    ms, ns = T.domain(0, M), T.domain(0, N)
    rows[ms] = x[ms, 0] * 2.0
    cols[ns] = x[0, ns] + 1.0


@tessel.kernel
def sum_beside_copy(x: T.In[T.f32, ("M", "N")], s: T.Out[T.f32, ("M",)], y: T.Out[T.f32, ("M2",)]):
    """Must not merge: a row sum (a member that loops) beside a copy over the same rows."""
    M, N = x.shape
    ms, ns = T.domain(0, M), T.domain(0, N)
    m = T.indices(ms)
    s[ms] = T.sum(x[ms, ns], axis=1)
    y[2 * m] = x[ms, 0] * 2.0


def remarks(tessel_bin, tmp_path, kernel):
    return opt_remarks(tessel_bin, tmp_path, kernel, "--tessel-pipeline=stop-after=construct", "-pgpu-merge-segments")


def test_remarks_say_which_merge(tessel_bin, tmp_path):
    said, program = remarks(tessel_bin, tmp_path, shuffle)
    assert "pgpu-merge-segments: 4 segments over the same members run as one group" in said
    assert program.count("pgpu.execution_group") == 1 and program.count("pgpu.scatter") == 4
    said, program = remarks(tessel_bin, tmp_path, two_domains)
    assert "segments kept apart: their extents differ" in said
    assert program.count("pgpu.execution_group") == 2
    said, program = remarks(tessel_bin, tmp_path, sum_beside_copy)
    assert "segments kept apart: a segment's body has loops, control or structured ops" in said
    assert program.count("pgpu.execution_group") == 2


def _s(N, C, H, W):
    return dict(N=N, C=C, C4=4 * C, H=H, W=W, OH=2 * H, OW=2 * W)


SHUFFLE = [_s(1, 1, 1, 1), _s(2, 3, 5, 7), _s(3, 5, 17, 13), _s(1, 2, 1, 131), _s(2, 1, 37, 1), _s(0, 2, 3, 5)]


@pytest.mark.parametrize("small", [True, False], ids=["small-blocks", "defaults"])
@pytest.mark.parametrize("shapes", SHUFFLE, ids=shape_arg)
def test_shuffle_matches_kir(tessel_bin, tmp_path, shapes, small):
    kir, out, program = kir_and_pgpu(tessel_bin, tmp_path, shuffle, shapes, 3, "smallest" if small else {})
    assert program.count("pgpu.execution_group") == 1  # merged: one group, no dispatch chain
    want, got = np.load(kir / "out.npy"), np.load(out / "out.npy")
    assert want.size == 0 or np.any(want != 0)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shapes", [dict(M=1, N=1), dict(M=17, N=131)], ids=shape_arg)
def test_two_domains_match_kir(tessel_bin, tmp_path, shapes):
    kir, out, _ = kir_and_pgpu(tessel_bin, tmp_path, two_domains, shapes, 5, "smallest")
    for name in ("rows", "cols"):
        np.testing.assert_array_equal(np.load(out / f"{name}.npy"), np.load(kir / f"{name}.npy"))


@pytest.mark.parametrize("shapes", [dict(M=1, N=1, M2=2), dict(M=17, N=131, M2=34)], ids=shape_arg)
def test_sum_beside_copy_matches_kir(tessel_bin, tmp_path, shapes):
    kir, out, _ = kir_and_pgpu(tessel_bin, tmp_path, sum_beside_copy, shapes, 5, "smallest")
    np.testing.assert_allclose(np.load(out / "s.npy"), np.load(kir / "s.npy"), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.load(out / "y.npy")[::2], np.load(kir / "y.npy")[::2])


@pytest.mark.parametrize("shapes", [SHUFFLE[1], SHUFFLE[2]], ids=shape_arg)
def test_triton_shuffle_matches_kir(tmp_path, monkeypatch, shapes):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = shuffle.run_interp(shapes, {}, {}, seed=4)
    x = torch.from_numpy(np.array(ref["x.in"]))
    out = torch.full((shapes["N"], shapes["C"], shapes["OH"], shapes["OW"]), float("nan"), dtype=torch.float32)
    shuffle(x, out)
    np.testing.assert_array_equal(out.numpy(), np.array(ref["out"]))
