"""pgpu-flatten-worksets with a per-row read before the workset: a paged cache's dequantization reads a
sequence's length (an `In` view) and then writes every (position, head, dim) of the sequence. That
read kept one program per sequence walking its whole [L, H, D] workset (16 programs at B=16, far
too few for the machine); an `In` view is never written during a launch, so each flattened program
reads the length again and gets the value the one program read, and the nest becomes program axes.

Differential: the pgpu interpreter after the whole pipeline, in shuffled program order, computes what
the KIR interpreter computes at odd shapes (B = 1, 2, 5; positions 1, 17, 48; dims 1, 3, 131; lengths
0, full and in between), under several bindings; the generated Triton under TRITON_INTERPRET=1 too.
A member that loops (a masked row sum per column) keeps its row form, and so does a member over one
row (a per-row scale): the row form already gives it its programs; so does a nest whose read value
enters the members' arithmetic (a per-member scale of a plane), not only their bounds or masks.
A read that offsets the members' coordinates (a packed sequence's start row: corpus 250's re-pad, 64
programs walking 8M elements each) is an address too: the nest flattens.
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T
from conftest import kir_and_pgpu, opt_remarks, shape_arg

BS = 4


@tessel.kernel
def paged_dequant(cache: T.In[T.i8, ("NB", 4, "H", "D")], scales: T.In[T.f32, ("NB", 4, "H")],
                  table: T.In[T.i32, ("B", "MB"), T.Range(0, "NB")], lens: T.In[T.i32, ("B",), T.Range(0, "L")],
                  out: T.Out[T.f32, ("B", "L", "H", "D")]):
    B, L, H, D = out.shape
    toks, heads, dims = T.domain(0, L), T.domain(0, H), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        t = T.indices(toks)
        live = t < T.cast(lens[b], T.index)
        blk = T.load(table, (b, t // BS), valid=live, fill=0)
        q = T.load(cache, (blk, t % BS, heads, dims), valid=live, fill=0)
        s = T.load(scales, (blk, t % BS, heads), valid=live, fill=0.0)
        out[b, toks, heads, dims] = T.cast(q, T.f32) * s


@tessel.kernel
def scaled_planes(x: T.In[T.f32, ("B", "M", "N")], scale: T.In[T.f32, ("B",)], out: T.Out[T.f32, ("B", "M", "N")]):
    """Must not flatten: a per-member scale that enters the plane's arithmetic (the weights of corpus
    102_b, whose flattened (c, w) tiles ran 3.9x slower on the H100): only reads that bound or mask the
    members are repeated per program."""
    B, M, N = x.shape
    ms, ns = T.domain(0, M), T.domain(0, N)
    for b in T.parallel(T.domain(0, B)):
        out[b, ms, ns] = x[b, ms, ns] * scale[b] + 1.0


@tessel.kernel
def scaled_rows(x: T.In[T.f32, ("B", "N")], scale: T.In[T.f32, ("B",)], out: T.Out[T.f32, ("B", "N")]):
    """Must not flatten: a per-row scale, then one row (its programs come from the row form)."""
    B, N = x.shape
    cols = T.domain(0, N)
    for b in T.parallel(T.domain(0, B)):
        out[b, cols] = x[b, cols] * scale[b] + 1.0


@tessel.kernel
def prefix_colsum(x: T.In[T.f32, ("B", "K", "N")], lens: T.In[T.i32, ("B",), T.Range(0, "K")],
                  out: T.Out[T.f32, ("B", "N")]):
    """Must not flatten: each member (a column) sums the row's live prefix, a loop."""
    B, K, N = x.shape
    cols, ks = T.domain(0, N), T.domain(0, K)
    for b in T.parallel(T.domain(0, B)):
        k = T.indices(ks)
        out[b, cols] = T.sum(T.load(x, (b, ks, cols), valid=k < T.cast(lens[b], T.index), fill=0.0), axis=0)


@tessel.kernel
def repad(x: T.In[T.f32, ("NT", "D")], starts: T.In[T.i32, ("B",), T.Range(0, "NT")],
          lens: T.In[T.i32, ("B",), T.Range(0, "S")], out: T.Out[T.f32, ("B", "S", "D")]):
    """Flattens: the start row offsets the gathered coordinate, the length masks it (zeros after)."""
    B, S, D = out.shape
    NT = x.shape[0]
    pos, dims = T.domain(0, S), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        start = T.cast(starts[b], T.index)
        p = T.indices(pos)
        inside = T.broadcast((p < T.cast(lens[b], T.index)) & (start + p < NT), over=(pos, dims), dims=[0])
        out[b, pos, dims] = T.load(x, (start + p, dims), valid=inside, fill=0.0)


def remarks(tessel_bin, tmp_path, kernel):
    return opt_remarks(tessel_bin, tmp_path, kernel, "--tessel-pipeline=stop-after=form-tiles")[0]


def test_remarks_say_which_flatten(tessel_bin, tmp_path):
    paged = remarks(tessel_bin, tmp_path, paged_dequant)
    assert paged.count("pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis") == 3
    planes = remarks(tessel_bin, tmp_path, scaled_planes)
    assert "not flattened: the program reads a value its members compute with before the workset" in planes
    assert "becomes program axis" not in planes
    rows = remarks(tessel_bin, tmp_path, scaled_rows)
    assert "not flattened: the program reads before a workset of one axis" in rows
    assert remarks(tessel_bin, tmp_path, repad).count("becomes program axis") == 2
    prefix = remarks(tessel_bin, tmp_path, prefix_colsum)
    assert "not flattened: the program reads before a workset whose members loop" in prefix


PAGED = [dict(NB=1, B=1, MB=1, L=4, H=1, D=1), dict(NB=5, B=2, MB=5, L=20, H=3, D=17),
         dict(NB=7, B=5, MB=12, L=48, H=1, D=131), dict(NB=3, B=3, MB=1, L=4, H=2, D=3)]



@pytest.mark.parametrize("small", [True, False], ids=["small-blocks", "defaults"])
@pytest.mark.parametrize("shapes", PAGED, ids=shape_arg)
def test_paged_dequant_matches_kir(tessel_bin, tmp_path, shapes, small):
    binding = "smallest" if small else {}
    kir, out, _ = kir_and_pgpu(tessel_bin, tmp_path, paged_dequant, shapes, 3, binding)
    want, got = np.load(kir / "out.npy"), np.load(out / "out.npy")
    assert np.any(want != 0) or shapes["B"] == 1  # one sequence may draw length 0
    np.testing.assert_array_equal(got, want)


PLANES = [dict(B=1, M=1, N=1), dict(B=2, M=3, N=5), dict(B=5, M=17, N=131), dict(B=3, M=2, N=1031)]


@pytest.mark.parametrize("shapes", PLANES, ids=shape_arg)
def test_scaled_planes_match_kir(tessel_bin, tmp_path, shapes):
    kir, out, _ = kir_and_pgpu(tessel_bin, tmp_path, scaled_planes, shapes, 9, "smallest")
    np.testing.assert_allclose(np.load(out / "out.npy"), np.load(kir / "out.npy"), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shapes", [dict(B=1, N=1), dict(B=17, N=131)], ids=shape_arg)
def test_scaled_rows_match_kir(tessel_bin, tmp_path, shapes):
    kir, out, _ = kir_and_pgpu(tessel_bin, tmp_path, scaled_rows, shapes, 9, "smallest")
    np.testing.assert_allclose(np.load(out / "out.npy"), np.load(kir / "out.npy"), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shapes", [dict(B=2, K=5, N=3), dict(B=3, K=17, N=131)], ids=shape_arg)
def test_looping_members_match_kir(tessel_bin, tmp_path, shapes):
    kir, out, _ = kir_and_pgpu(tessel_bin, tmp_path, prefix_colsum, shapes, 2, {})
    np.testing.assert_allclose(np.load(out / "out.npy"), np.load(kir / "out.npy"), rtol=1e-5, atol=1e-5)


REPAD = [dict(NT=1, B=1, S=1, D=1), dict(NT=13, B=3, S=7, D=5), dict(NT=61, B=5, S=17, D=131)]


@pytest.mark.parametrize("shapes", REPAD, ids=shape_arg)
def test_repad_matches_kir(tessel_bin, tmp_path, shapes):
    kir, out, _ = kir_and_pgpu(tessel_bin, tmp_path, repad, shapes, 7, "smallest")
    want = np.load(kir / "out.npy")
    assert np.any(want != 0) or shapes["B"] == 1  # one sequence may draw length 0
    np.testing.assert_array_equal(np.load(out / "out.npy"), want)


def test_triton_repad_matches_kir(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    shapes = REPAD[2]
    ref = repad.run_interp(shapes, {}, {}, seed=4)
    args = [torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("x", "starts", "lens")]
    out = torch.full((shapes["B"], shapes["S"], shapes["D"]), float("nan"), dtype=torch.float32)
    repad(*args, out)
    np.testing.assert_array_equal(out.numpy(), np.array(ref["out"]))


@pytest.mark.parametrize("shapes", [PAGED[1], PAGED[2]], ids=shape_arg)
def test_triton_paged_dequant_matches_kir(tmp_path, monkeypatch, shapes):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = paged_dequant.run_interp(shapes, {}, {}, seed=4)
    args = [torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("cache", "scales", "table", "lens")]
    out = torch.full((shapes["B"], shapes["L"], shapes["H"], shapes["D"]), float("nan"), dtype=torch.float32)
    paged_dequant(*args, out)
    np.testing.assert_array_equal(out.numpy(), np.array(ref["out"]))
