"""Scatter-reduce worksets are blocked (issue 16): pgpu-refine-mapping gives each program BLOCK_P
members and pgpu-form-blocking turns the scatter-reduce into a fragment one, so lanes of one block
collide on one element and combine under the declared add (seed 000 §6, §9). Checked with heavy
collisions (few rows) at odd shapes against NumPy, the KIR interpreter, the pgpu interpreter in
shuffled program order and Triton under TRITON_INTERPRET=1; integer values make every order exact.
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def scatter_1d(vals: T.In[T.i32, ("N",)], ids: T.In[T.i32, ("N",), T.Range(0, "V")],
               acc: T.InOut[T.i32, ("V",)]):
    tokens = T.domain(0, vals.shape[0])
    T.scatter_reduce(acc, (T.index_relation(ids, tokens),), vals[tokens], combine="add")


SHAPES = [{"N": 1, "V": 1}, {"N": 1000, "V": 3}, {"N": 4099, "V": 17}, {"N": 0, "V": 5}]



@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: f"N{s['N']}-V{s['V']}")
def test_blocked_scatter_reduce_matches_kir_and_numpy(tessel_bin, tmp_path, shapes):
    source = tmp_path / "scatter.mlir"
    source.write_text(scatter_1d.kir())
    outs = {}
    for stage, order in (("kir", "forward"), ("pgpu", "forward"), ("pgpu", "shuffle")):
        out = tmp_path / f"{stage}-{order}"
        cmd = [str(tessel_bin), "run", f"{source}:scatter_1d", "--stage", stage, "--order", order, "--seed", "4",
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--out", str(out)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        outs[(stage, order)] = {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}
    kir = outs[("kir", "forward")]
    want = kir["acc.in"].astype(np.int64).copy()
    np.add.at(want, kir["ids.in"], kir["vals.in"])
    np.testing.assert_array_equal(kir["acc"], want.astype(np.int32))
    for key, got in outs.items():
        np.testing.assert_array_equal(got["acc"], kir["acc"], err_msg=str(key))


def test_program_is_blocked(tessel_bin, tmp_path):
    source = tmp_path / "scatter.mlir"
    source.write_text(scatter_1d.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert '#pgpu.param<"BLOCK_P"' in res.stdout
    assert "pgpu.scatter_reduce" in res.stdout and "!pgpu.fragment<f32" not in res.stdout
    assert any("pgpu.scatter_reduce" in line and "!pgpu.fragment<i32, [BLOCK]>" in line
               for line in res.stdout.splitlines())


@pytest.mark.parametrize("shapes", SHAPES[1:3], ids=lambda s: f"N{s['N']}-V{s['V']}")
def test_triton_matches_interpreter(shapes, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = scatter_1d.run_interp(shapes, seed=9)
    acc = torch.from_numpy(ref["acc.in"].copy())
    scatter_1d(torch.from_numpy(ref["vals.in"]), torch.from_numpy(ref["ids.in"]), acc)
    np.testing.assert_array_equal(acc.numpy(), ref["acc"])


# examples/scatter_add.py over [T, D] tokens: programs own consecutive members of the flattened
# (token, column) order, so D = 1 (a 1-d scatter-add) still fills whole blocks of lanes.
ROWS_SHAPES = [{"T": 1000, "D": 1, "V": 3}, {"T": 37, "D": 5, "V": 2}, {"T": 3, "D": 129, "V": 7},
               {"T": 0, "D": 4, "V": 3}]


@pytest.mark.parametrize("shapes", ROWS_SHAPES, ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_flattened_scatter_add_matches_kir(tessel_bin, root, tmp_path, shapes):
    import sys
    sys.path.insert(0, str(root / "examples"))
    import scatter_add
    source = tmp_path / "scatter_add.mlir"
    source.write_text(scatter_add.scatter_add.kir())
    outs = {}
    for stage, order in (("kir", "forward"), ("pgpu", "shuffle")):
        out = tmp_path / stage
        cmd = [str(tessel_bin), "run", f"{source}:scatter_add", "--stage", stage, "--order", order, "--seed", "2",
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--out", str(out), "--param", "BLOCK=64"]
        if stage == "kir":
            cmd = cmd[:-2]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        outs[stage] = {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}
    kir = outs["kir"]
    want = kir["grad_table.in"].astype(np.float64).copy()
    np.add.at(want, kir["ids.in"], kir["grad_out.in"].astype(np.float64))
    np.testing.assert_allclose(kir["grad_table"], want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(outs["pgpu"]["grad_table"], kir["grad_table"], rtol=1e-6, atol=1e-6)
    pgpu = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu"], capture_output=True, text=True)
    assert 'roles ["axis0*axis1"]' in pgpu.stdout  # one flattened axis of programs
