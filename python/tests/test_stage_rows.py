"""Row staging (pgpu-stage-rows) against the KIR interpreter.

A row that fits one block (0 < N <= BLOCK) takes the staged path (every blocked loop body once,
the repeated reads merged); longer rows and empty rows take the loops. At lengths just below, at
and above BLOCK (and 0, 1), both paths must compute what the KIR interpreter computes, in the pgpu
interpreter and in the generated Triton under TRITON_INTERPRET=1.
"""
import os
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

KERNELS = [("softmax.mlir", {}), ("layernorm.mlir", {"eps": 1e-5}), ("rmsnorm.mlir", {"eps": 1e-6}),
           ("cross_entropy.mlir", {}), ("argmax.mlir", {})]
LENGTHS = [0, 1, 63, 64, 65, 130]


def run(tessel, spec, shapes, scalars, stage, params):
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(tessel), "run", spec, "--stage", stage, "--seed", "11", "--out", out,
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
        for k, v in scalars.items():
            cmd += ["--scalar", f"{k}={v}"]
        for k, v in params.items():
            cmd += ["--param", f"{k}={v}"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out) if not p.endswith(".in.npy")}


def shapes_of(spec, n):
    return {"M": 3, "C": n} if spec.startswith("cross_entropy") else {"M": 3, "N": n}


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("spec,scalars", KERNELS, ids=[k[0] for k in KERNELS])
def test_staged_and_looped_rows_match_kir(tessel_bin, root, spec, scalars, n):
    if n == 0 and spec in ("argmax.mlir", "cross_entropy.mlir"):
        pytest.skip("an arg-reduce over an empty row is an error in KIR itself")
    path = str(root / "examples" / "kir" / spec)
    ref = run(tessel_bin, path, shapes_of(spec, n), scalars, "kir", {})
    got = run(tessel_bin, path, shapes_of(spec, n), scalars, "pgpu", {"BLOCK": 64})
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_staged_path_reads_the_row_once(tessel_bin, root):
    res = subprocess.run([str(tessel_bin), "compile", str(root / "examples/kir/softmax.mlir"), "--emit=pgpu"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    staged = res.stdout.split("pgpu.if", 1)[1].split("} else {", 1)[0]
    assert staged.count("pgpu.load") == 1 and staged.count("pgpu.unary exp") == 1
    assert "pgpu.for" not in staged


@pytest.mark.parametrize("n", [1, 63, 64, 65])
def test_staged_softmax_through_triton(n, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("softmax")
    ref = kernel.run_interp({"M": 3, "N": n}, seed=2)
    x = torch.from_numpy(np.array(ref["x.in"]))
    y = torch.empty_like(x)
    kernel._launcher({}, {"BLOCK": 64})(x, y)
    np.testing.assert_allclose(y.numpy(), ref["y"], rtol=1e-5, atol=1e-7)


# A row the author tests first (a per-row flag): the branch that walks the row is a program body too,
# so it takes the staged path where the row fits one block (pgpu-stage-rows on top-level if branches).
import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def flagged_rowmax_shift(x: T.In[T.f32, ("M", "N")], flag: T.In[T.i32, ("M",)], y: T.Out[T.f32, ("M", "N")],
                         top: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        if flag[m] % 2 == 0:
            top[m] = 0.0
        else:
            row = x[m, cols]
            mx = T.max(row)
            top[m] = mx + T.log(T.sum(T.exp(row - mx)))
            y[m, cols] = row - mx


@pytest.mark.parametrize("n", [1, 63, 64, 65, 130])
def test_flagged_rows_staged_match_kir(tessel_bin, n, tmp_path):
    shapes = {"M": 9, "N": n}
    path = flagged_rowmax_shift._write(tmp_path, {})
    spec = f"{path}:{flagged_rowmax_shift.name}"
    ref = run(tessel_bin, spec, shapes, {}, "kir", {})
    got = run(tessel_bin, spec, shapes, {}, "pgpu", {"BLOCK": 64})
    assert ref.keys() == got.keys()
    flagged = flagged_rowmax_shift.run_interp(shapes, seed=11)["flag.in"] % 2 == 0  # the inputs `run` drew
    assert flagged.any() and (~flagged).any(), "the seed must take both branches"
    for name in ("top",):
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(got["y"][~flagged], ref["y"][~flagged], rtol=1e-5, atol=1e-6)


def test_flagged_rows_read_once_in_the_branch(tessel_bin, tmp_path):
    path = flagged_rowmax_shift._write(tmp_path, {})
    res = subprocess.run([str(tessel_bin), "compile", f"{path}:{flagged_rowmax_shift.name}", "--emit=pgpu"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    branch = res.stdout.split("} else {", 1)[1]
    staged = branch.split("pgpu.if", 1)[1].split("} else {", 1)[0]
    # max, exp-sum and the store of y share one read: x is `in`, so the read after the store of top takes
    # the first one's values (pgpu-reuse-input-reads; CSE alone does not move a read across a write)
    assert staged.count("pgpu.load %x") == 1 and "pgpu.for" not in staged


@pytest.mark.parametrize("n", [1, 64, 65])
def test_flagged_rows_through_triton(n, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = flagged_rowmax_shift.run_interp({"M": 5, "N": n}, seed=11)
    x = torch.from_numpy(np.array(ref["x.in"]))
    flag = torch.from_numpy(np.array(ref["flag.in"]))
    y = torch.zeros_like(x)
    top = torch.empty(5, dtype=torch.float32)
    flagged_rowmax_shift._launcher({}, {"BLOCK": 64})(x, flag, y, top)
    np.testing.assert_allclose(top.numpy(), ref["top"], rtol=1e-5, atol=1e-6)
    keep = ref["flag.in"] % 2 != 0
    np.testing.assert_allclose(y.numpy()[keep], ref["y"][keep], rtol=1e-5, atol=1e-6)


# Rows longer than 16384 (the largest candidate of form-blocking) but within the Triton provider's
# staged limit (32768 f32 values: half the register file, TritonLegalize widenStagedRows): an untuned
# call covers them in one block of 32768 and reads each row once; 32769 and longer keep the loops.
@pytest.mark.parametrize("n,block", [(16385, 32768), (24593, 32768), (32749, 32768), (32768, 32768),
                                     (32771, None)])
@pytest.mark.parametrize("name", ["softmax", "layernorm"])
def test_long_rows_staged_through_triton(name, n, block, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example(name)
    scalars = {"eps": 1e-5} if name == "layernorm" else {}
    ref = kernel.run_interp({"M": 3, "N": n}, scalars=scalars, seed=5)
    ins = {k[:-3]: torch.from_numpy(np.array(v)) for k, v in ref.items() if k.endswith(".in")}
    outs = {k: torch.empty(np.shape(v), dtype=torch.float32) for k, v in ref.items() if not k.endswith(".in")}
    names = kernel.fn.__code__.co_varnames[:kernel.fn.__code__.co_argcount]
    args = [ins[p] if p in ins else outs[p] for p in names if p not in scalars]
    chosen = kernel.call_defaults(*args, **scalars)["BLOCK"]
    assert chosen == block if block else chosen < n
    kernel(*args, **scalars)
    for k, v in outs.items():
        np.testing.assert_allclose(v.numpy(), ref[k], rtol=1e-4, atol=1e-5, err_msg=k)
