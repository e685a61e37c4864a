"""pgpu-flatten-worksets (issue 13 step 1: natural spellings of one computation map alike).

examples/batched_gemv.py spells a batched GEMV twice: a T.parallel(b) loop around T.matvec, and one
batched T.contract. Before the pass the loop spelling ran one program per b walking the rows in order
(11x slower on the H200 at B=64, M=1027, K=1024); now both compile to the same kernel, and the loop
spelling agrees with the KIR interpreter (its differential cases are in test_dsl.py and the matrix).
"""
import re
import subprocess
import sys

import pytest


def kernel_lines(tessel_bin, root, name, tmp_path):
    sys.path.insert(0, str(root / "examples"))
    import batched_gemv
    kir = tmp_path / f"{name}.mlir"
    kir.write_text(getattr(batched_gemv, name).kir({}))
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--emit=source", "--target=triton"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    lines = res.stdout[res.stdout.index(f"def _{name}_kernel"):].splitlines()
    end = next(i for i, ln in enumerate(lines[1:], 1) if ln and not ln[0].isspace())  # the @triton.jit body
    return [ln.replace(name, "K") for ln in lines[:end] if not ln.strip().startswith("#")]


def shape_of(lines):
    """The kernel with SSA numbers and the order of its extent computations abstracted away."""
    return [re.sub(r"\bv\d+\b", "v", re.sub(r"_rest\d+", "_rest", ln)) for ln in lines]


def test_loop_and_contract_spellings_compile_alike(tessel_bin, root, tmp_path):
    loop = kernel_lines(tessel_bin, root, "batched_gemv", tmp_path)
    contract = kernel_lines(tessel_bin, root, "batched_gemv_contract", tmp_path)
    assert shape_of(loop) == shape_of(contract)
    # ROWS rows of one b a program (pgpu-pack-rows): one delinearization step, the rows a [ROWS] block.
    assert sum("_rest % " in ln for ln in shape_of(loop)) == 1


def test_remark_names_the_new_axis(tessel_bin, root, tmp_path):
    sys.path.insert(0, str(root / "examples"))
    import batched_gemv
    kir = tmp_path / "k.mlir"
    kir.write_text(batched_gemv.batched_gemv.kir({}).replace("#kir.compile_options<>",
                                                             "#kir.compile_options<optimization_remarks = true>"))
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(kir), "--tessel-pipeline=stop-after=form-tiles"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis 1" in res.stderr
