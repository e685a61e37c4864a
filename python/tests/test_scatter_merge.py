"""A scatter-add into a view an earlier workset writes adds into a zeroed workspace in parallel, and
the last program instance adds that workspace into the view and zeroes it again (ScatterMerge.cpp;
seed 000 §2, §6). After a zero fill of the whole view (index_add_ into zeros: 101_sorted_segment_sum)
the fill keeps its segment and the scatter's instances wait until every earlier instance has arrived
at the launch's ticket, then add into the view itself (no workspace, no serial copy). Checked at odd
shapes (empty inputs, one segment, primes, many collisions) against NumPy, the KIR interpreter, the
pgpu interpreter in forward and shuffled program order and Triton under TRITON_INTERPRET=1, called
twice so the second call sees the workspace the first one returned to zero. Integer-valued floats
make every order exact.
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import run_drawn  # noqa: E402


@tessel.kernel
def fill_then_add(x: T.In[T.f32, ("N", "D")], ids: T.In[T.i32, ("N",), T.Range(0, "S")],
                  out: T.InOut[T.f32, ("S", "D")]):
    N, D = x.shape
    rows, dims = T.domain(0, N), T.domain(0, D)
    out[T.domain(0, out.shape[0]), dims] = 0.0
    T.scatter_reduce(out, (T.index_relation(ids, rows), dims), x[rows, dims], combine="add")


@tessel.kernel
def ones_then_add(x: T.In[T.f32, ("N", "D")], ids: T.In[T.i32, ("N",), T.Range(0, "S")],
                  out: T.InOut[T.f32, ("S", "D")]):
    # a fill that is not the add's identity stays; the last program adds the sums into it
    N, D = x.shape
    rows, dims = T.domain(0, N), T.domain(0, D)
    out[T.domain(0, out.shape[0]), dims] = 1.0
    T.scatter_reduce(out, (T.index_relation(ids, rows), dims), x[rows, dims], combine="add")


@tessel.kernel
def scale_then_add(x: T.In[T.i32, ("N",)], ids: T.In[T.i32, ("N",), T.Range(0, "S")],
                   out: T.InOut[T.i32, ("S",)]):
    # the earlier workset reads and writes the target (out *= 2): the sums land on the doubled values
    for s in T.parallel(T.domain(0, out.shape[0])):
        out[s] = out[s] * 2
    rows = T.domain(0, x.shape[0])
    T.scatter_reduce(out, (T.index_relation(ids, rows),), x[rows], combine="add")


SHAPES = [dict(N=0, D=3, S=2), dict(N=1, D=1, S=1), dict(N=37, D=7, S=11), dict(N=211, D=5, S=3),
          dict(N=1031, D=1, S=97), dict(N=2053, D=3, S=1031)]  # the last: several programs a segment


@pytest.mark.parametrize("fill", [0.0, 1.0])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_fill_then_add_matches_numpy_and_interpreters(tessel_bin, tmp_path, shape, fill):
    kernel = fill_then_add if fill == 0.0 else ones_then_add
    outs = {(stage, order): run_drawn(tessel_bin, tmp_path, kernel, shape, stage, order)
            for stage, order in (("kir", "forward"), ("pgpu", "forward"), ("pgpu", "shuffle"))}
    kir = outs[("kir", "forward")]
    want = np.full(kir["out.in"].shape, fill, np.float64)
    np.add.at(want, kir["ids.in"], kir["x.in"].astype(np.float64))
    np.testing.assert_allclose(kir["out"], want, rtol=1e-5, atol=1e-5)
    for key, got in outs.items():
        np.testing.assert_allclose(got["out"], kir["out"], rtol=1e-5, atol=1e-5, err_msg=str(key))


@pytest.mark.parametrize("shape", [dict(N=0, S=3), dict(N=1, S=1), dict(N=4099, S=17)],
                         ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_target_read_first_matches_numpy_and_interpreters(tessel_bin, tmp_path, shape):
    outs = {(stage, order): run_drawn(tessel_bin, tmp_path, scale_then_add, shape, stage, order)
            for stage, order in (("kir", "forward"), ("pgpu", "forward"), ("pgpu", "shuffle"))}
    kir = outs[("kir", "forward")]
    want = kir["out.in"].astype(np.int64) * 2
    np.add.at(want, kir["ids.in"], kir["x.in"])
    np.testing.assert_array_equal(kir["out"], want.astype(np.int32))
    for key, got in outs.items():
        np.testing.assert_array_equal(got["out"], kir["out"], err_msg=str(key))


def test_the_merge_is_constructed(tessel_bin, tmp_path):
    source = tmp_path / "k.mlir"
    source.write_text(fill_then_add.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    pgpu = res.stdout
    # no workspace: the fill stays a segment, the scatter's instances wait for it and add into out
    assert "pgpu.kept" not in pgpu and "!pgpu.buffer<f32, [S, D], workspace>" not in pgpu
    head, last = pgpu.split("pgpu.last_program", 1)
    assert "pgpu.store" in head and "pgpu.scatter_reduce %" in head and ", %out[" in head
    assert "order acquire" in head.split("pgpu.scatter_reduce", 1)[0]  # the wait before the adds
    assert "pgpu.load" not in last and "pgpu.store" not in last  # no serial copy
    # both segments take BLOCK_P members a program (the ticketed chain is refined)
    assert pgpu.count("pgpu.for ") >= 2 and 'pgpu.param "BLOCK_P"' in pgpu


@pytest.mark.parametrize("shape", [dict(N=37, D=7, S=11), dict(N=1031, D=3, S=5), dict(N=0, D=2, S=3),
                                   dict(N=2053, D=3, S=1031)],
                         ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_triton_twice_matches_numpy(shape, tmp_path, monkeypatch):
    """Two calls: the second sees the workspace the first left zero (kept by the wrapper)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(shape["N"])
    N, D, S = shape["N"], shape["D"], shape["S"]
    for call in range(2):
        x = rng.integers(-8, 8, (N, D)).astype(np.float32)
        ids = np.sort(rng.integers(0, S, N)).astype(np.int32)
        out = torch.from_numpy(rng.standard_normal((S, D)).astype(np.float32))
        fill_then_add(torch.from_numpy(x), torch.from_numpy(ids), out)
        want = np.zeros((S, D), np.float32)
        np.add.at(want, ids, x)
        np.testing.assert_array_equal(out.numpy(), want, err_msg=f"call {call}")
