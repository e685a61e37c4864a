"""Open findings of the DSL fuzzer (test/fuzz/dsl-findings/README.md), each a strict xfail stating the
expected behaviour: kir-to-pgpu builds the kernel and the pgpu interpreter agrees with the KIR
interpreter on random inputs; for index_floor_div, the generated Triton (TRITON_INTERPRET=1) agrees
with the KIR interpreter and NumPy's floor semantics."""
import importlib.util
import os
import pathlib

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

from tessel import _cli  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parents[2] / "test" / "fuzz" / "dsl-findings"


def load(name):
    spec = importlib.util.spec_from_file_location(f"dsl_finding_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_OPEN = pytest.mark.xfail(strict=True, reason="kir-to-pgpu does not construct these yet (docs/language.md, "
                                              "Not yet supported)")


# scan_used_by_op was fixed by scans as values (kir-to-pgpu ScanValues.cpp), kernel_level_scan by a top-level
# stored scan's workset of lines (session 45): they stay as regression tests.
@pytest.mark.parametrize("name", [pytest.param("while_in_parallel", marks=_OPEN), pytest.param("tensor_if", marks=_OPEN),
                                  "scan_used_by_op", "kernel_level_scan",
                                  pytest.param("member_buffer", marks=_OPEN)])
def test_pgpu_agrees_with_the_kir_interpreter(name, tmp_path):
    mod = load(name)
    ref = mod.kernel.run_interp(mod.SHAPES, seed=5)
    path, out = tmp_path / "k.mlir", tmp_path / "out"
    path.write_text(mod.kernel.kir())
    args = ["run", f"{path}:kernel", "--stage=pgpu", "--shape", ",".join(f"{k}={v}" for k, v in mod.SHAPES.items()),
            "--out", str(out)]
    for key, arr in ref.items():
        if key.endswith(".in"):
            np.save(tmp_path / f"{key}.npy", arr)
            args += ["--in", f"{key[:-3]}={tmp_path / f'{key}.npy'}"]
    _cli.check(_cli.run_tessel(args), "tessel run --stage=pgpu")
    for key, arr in ref.items():
        if not key.endswith(".in"):
            np.testing.assert_allclose(np.load(out / f"{key}.npy"), arr, rtol=1e-6, err_msg=key)


# index_floor_div was fixed (issue 47: the Triton provider floors index // and % unless the operands are
# provably non-negative, pgpu IndexSign.h): it stays as a regression test.
def test_index_floor_division_through_triton(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    mod = load("index_floor_div")
    m = mod.SHAPES["M"]
    y, z = torch.empty(m, dtype=torch.int32), torch.empty(m, dtype=torch.int32)
    mod.kernel(torch.zeros(m), y, z)
    ref = mod.kernel.run_interp(mod.SHAPES)
    np.testing.assert_array_equal(ref["y"], (np.arange(m) - 3) // 2)   # the interpreter floors
    np.testing.assert_array_equal(y.numpy(), (np.arange(m) - 3) // 2)
    np.testing.assert_array_equal(z.numpy(), (np.arange(m) - 3) % 2)
