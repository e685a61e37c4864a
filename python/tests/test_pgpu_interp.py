"""Hand-written physical (pgpu) kernels on the CPU interpreter against NumPy.

`tessel run FILE --param ... --out DIR` binds the kernel's physical parameters,
forms the grid from its LaunchExprs, runs every program instance (in the
selected order) and writes the inputs it saw as NAME.in.npy and the outputs as
NAME.npy. References are computed here in float64 from those inputs.
"""
import itertools
import subprocess

import numpy as np
import pytest

PGPU = ("examples", "pgpu")
GEMM_BINDINGS = ("BM=16,BN=16,BK=16", "BM=64,BN=32,BK=32")
GEMM_EXTENTS = (1, 37, 128, 129)
SOFTMAX_BINDINGS = ("BM=1,BN=16", "BM=8,BN=128")
SOFTMAX_SHAPES = ((1, 1), (3, 129), (37, 1000), (5, 17))


def runs(bindings):
    """Each binding in the default program order, and the last one in a shuffled order too."""
    return [(params, None) for params in bindings] + [(bindings[-1], "shuffle")]


def tessel_run(tessel, kernel, shapes, out, params=None, order=None, seed=0):
    cmd = [str(tessel), "run", str(kernel), "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()),
           "--seed", str(seed), "--out", str(out)]
    if params:
        cmd += ["--param", params]
    if order:
        cmd += ["--order", order]
    return cmd, subprocess.run(cmd, capture_output=True, text=True)


def run_pgpu(tessel, root, tmp_path, name, shapes, params=None, order=None, seed=0):
    out = tmp_path / "out"
    cmd, res = tessel_run(tessel, root.joinpath(*PGPU, name), shapes, out, params, order, seed)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}


def softmax_reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("name", ["gemm.mlir", "softmax.mlir", "online_softmax.mlir"])
def test_example_verifies_and_round_trips(tessel_bin, root, tmp_path, name):
    opt = tessel_bin.parent / "tessel-opt"
    first = subprocess.run([str(opt), str(root.joinpath(*PGPU, name))], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    printed = tmp_path / "a.mlir"
    printed.write_text(first.stdout)
    second = subprocess.run([str(opt), str(printed)], capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout


@pytest.mark.parametrize("params,order", runs(GEMM_BINDINGS))
@pytest.mark.parametrize("m,n,k", list(itertools.product(GEMM_EXTENTS, repeat=3)))
def test_gemm(tessel_bin, root, tmp_path, m, n, k, params, order):
    a = run_pgpu(tessel_bin, root, tmp_path, "gemm.mlir", {"M": m, "N": n, "K": k}, params, order, seed=3)
    assert a["A.in"].dtype == np.float16 and a["B.in"].dtype == np.float16
    ref = a["A.in"].astype(np.float64) @ a["B.in"].astype(np.float64)
    assert a["C"].dtype == np.float32 and a["C"].shape == (m, n)
    np.testing.assert_allclose(a["C"], ref, rtol=1e-5, atol=1e-5 * k)


@pytest.mark.parametrize("params,order", runs(SOFTMAX_BINDINGS))
@pytest.mark.parametrize("m,n", SOFTMAX_SHAPES)
@pytest.mark.parametrize("name", ["softmax.mlir", "online_softmax.mlir"])
def test_softmax(tessel_bin, root, tmp_path, name, m, n, params, order):
    a = run_pgpu(tessel_bin, root, tmp_path, name, {"M": m, "N": n}, params, order, seed=5)
    assert a["Y"].dtype == np.float32 and a["Y"].shape == (m, n)
    assert np.isfinite(a["Y"]).all(), "an element of Y was not written (the out view starts as NaN)"
    np.testing.assert_allclose(a["Y"], softmax_reference(a["X.in"]), rtol=1e-5, atol=0)


@pytest.mark.parametrize("name", ["softmax.mlir", "online_softmax.mlir"])
def test_softmax_default_params(tessel_bin, root, tmp_path, name):
    a = run_pgpu(tessel_bin, root, tmp_path, name, {"M": 37, "N": 129})
    np.testing.assert_allclose(a["Y"], softmax_reference(a["X.in"]), rtol=1e-5, atol=0)


# Every program instance stores to Y[0]. The store's validity `pid >= 0` is
# always true but depends on the program coordinate, so the static check of
# invariant 9 accepts the kernel; the interpreter must catch the conflict.
CONFLICT_KERNEL = """\
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @race(%X: !pgpu.view<f32, [N], in>, %Y: !pgpu.view<f32, [1], out>) {
    %N = pgpu.extent %X[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space (%N) {
    ^bb0(%pid: index):
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %ok = pgpu.cmp ge %pid, %c0 : index
      %v = pgpu.load %X[%pid] valid %ok : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      pgpu.store %v, %Y[%c0] valid %ok : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
"""


def run_conflict(tessel_bin, tmp_path):
    kernel = tmp_path / "race.mlir"
    kernel.write_text(CONFLICT_KERNEL)
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(kernel)], capture_output=True, text=True)
    assert opt.returncode == 0, f"the static verifier must accept the kernel:\n{opt.stderr}"
    _, res = tessel_run(tessel_bin, kernel, {"N": 4}, tmp_path / "out")
    return res


def test_cross_instance_conflict_is_reported(tessel_bin, tmp_path):
    res = run_conflict(tessel_bin, tmp_path)
    assert "write the same element without atomics" in res.stderr, res.stderr


def test_cross_instance_conflict_fails_the_run(tessel_bin, tmp_path):
    res = run_conflict(tessel_bin, tmp_path)
    assert res.returncode == 1, f"exit code {res.returncode}\n{res.stderr}"
    assert "write the same element without atomics" in res.stderr, res.stderr


def test_param_outside_domain(tessel_bin, root, tmp_path):
    _, res = tessel_run(tessel_bin, root.joinpath(*PGPU, "gemm.mlir"), {"M": 4, "N": 4, "K": 4}, tmp_path / "out",
                        params="BM=48")
    assert res.returncode == 2, f"exit code {res.returncode}\n{res.stderr}"
    assert "outside its candidate domain" in res.stderr, res.stderr
