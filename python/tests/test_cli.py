"""End-to-end checks of the `tessel` command line on KIR text."""
import subprocess

import pytest


def run(tessel, *args, input_text=None):
    return subprocess.run([str(tessel), *map(str, args)], capture_output=True, text=True, input=input_text)


def kir_files(root):
    files = sorted((root / "examples" / "kir").glob("*.mlir"))
    assert files, "examples/kir holds the hand-written suite kernels"
    return files


def test_examples_compile_to_identical_kir(tessel_bin, root):
    for path in kir_files(root):
        first = run(tessel_bin, "compile", path, "--emit=kir")
        assert first.returncode == 0, f"{path.name}: {first.stderr}"
        assert "kir.kernel @" in first.stdout
        second = run(tessel_bin, "compile", path, "--emit=kir")
        assert first.stdout == second.stdout, f"{path.name}: output differs between two compiles"


def test_printed_kir_is_a_fixed_point(tessel_bin, root, tmp_path):
    for path in kir_files(root):
        once = run(tessel_bin, "compile", path, "--emit=kir").stdout
        (tmp_path / "once.mlir").write_text(once)
        twice = run(tessel_bin, "compile", tmp_path / "once.mlir", "--emit=kir").stdout
        assert once == twice, path.name


def test_origins_are_attached(tessel_bin, root):
    out = run(tessel_bin, "compile", root / "examples/kir/softmax.mlir", "--emit=kir", "--mlir-print-debuginfo")
    assert out.returncode == 0, out.stderr
    assert '#kir.origin<"softmax", 0>' in out.stdout
    assert '#kir.origin<"softmax", 1>' in out.stdout


def test_command_line_overrides_compile_options(tessel_bin, root):
    out = run(tessel_bin, "compile", root / "examples/kir/softmax.mlir", "--emit=kir",
              "--numerics=relaxed_normalization", "--online-reduction=false", "--remarks")
    assert out.returncode == 0, out.stderr
    assert ("#kir.compile_options<numerics = relaxed_normalization, online_reduction = false, "
            "optimization_remarks = true>") in out.stdout


@pytest.mark.parametrize("flag,value", [("--numerics", "fast"), ("--online-reduction", "maybe")])
def test_bad_option_value_is_a_clear_error(tessel_bin, root, flag, value):
    out = run(tessel_bin, "compile", root / "examples/kir/softmax.mlir", "--emit=kir", f"{flag}={value}")
    assert out.returncode == 2
    assert value in out.stderr and flag.lstrip("-") in out.stderr


def test_verifier_error_has_location_and_exit_code_2(tessel_bin, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(
        'kir.kernel @k(%x: !kir.view<f32, [N], in>) {\n'
        '  %c0 = arith.constant 0 : index\n'
        '  %v = arith.constant 1.0 : f32\n'
        '  kir.store %v, %x[%c0] : f32, !kir.view<f32, [N], in>[index]\n'
        '  kir.return\n'
        '}\n')
    out = run(tessel_bin, "compile", bad, "--emit=kir")
    assert out.returncode == 2
    assert f"{bad}:4:3: error: 'kir.store' op writes to an 'in' view" in out.stderr


def test_kernel_selection(tessel_bin, root):
    path = root / "test/Dialect/KIR/ops.mlir"
    out = run(tessel_bin, "compile", f"{path}:folds", "--emit=kir")
    assert out.returncode == 0, out.stderr
    assert "kir.kernel @folds" in out.stdout
    assert "kir.kernel @effects" not in out.stdout
    missing = run(tessel_bin, "compile", f"{path}:nope", "--emit=kir")
    assert missing.returncode == 2
    assert "no kir.kernel named 'nope'" in missing.stderr


def test_unbuilt_stages_are_rejected_not_faked(tessel_bin, root):
    path = root / "examples/kir/softmax.mlir"
    for emit in ("pgpu", "source"):
        out = run(tessel_bin, "compile", path, f"--emit={emit}")
        assert out.returncode == 2
        assert "kir-to-pgpu construction" in out.stderr
        assert out.stdout == ""


def test_usage_errors(tessel_bin, root, tmp_path):
    assert run(tessel_bin).returncode == 2
    unknown = run(tessel_bin, "frobnicate")
    assert unknown.returncode == 2 and "unknown command 'frobnicate'" in unknown.stderr
    missing = run(tessel_bin, "compile", tmp_path / "none.mlir", "--emit=kir")
    assert missing.returncode == 2 and "none.mlir" in missing.stderr
    dsl = run(tessel_bin, "compile", tmp_path / "k.py:add", "--emit=kir")
    assert dsl.returncode == 2 and "DSL files are traced by the Python package" in dsl.stderr
