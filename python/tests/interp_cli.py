"""What the interpreter-comparison tests share (test_contract_loops.py, test_init_rows.py, test_fold_views.py): a
kernel's pgpu program after realize-folds, one `tessel run` of a KIR or pgpu program on given inputs, and the
comparison of its outputs."""
import subprocess

import numpy as np


def realize_folds(tessel_bin, tmp_path, kernel):
    """(KIR source, pgpu program after realize-folds) of `kernel`, written under tmp_path."""
    source = kernel._write(tmp_path, None)
    program = tmp_path / f"{kernel.name}-pgpu.mlir"
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=realize-folds", "-o", str(program)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return source, program


def run_cli(tessel_bin, tmp_path, source, shape, inputs, extra, tag):
    """The outputs (name -> float64 array) of `tessel run SOURCE` at `shape` on `inputs` (name -> array),
    with `extra` arguments (`--stage kir`, `--order shuffle`, `--param=...`), written under tmp_path/out-TAG."""
    out = tmp_path / f"out-{tag}"
    args = [str(tessel_bin), "run", str(source), "--shape", ",".join(f"{k}={v}" for k, v in shape.items()),
            "--out", str(out), *extra]
    for n, x in inputs.items():
        np.save(tmp_path / f"{n}.npy", x)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return {p.stem: np.load(p).astype(np.float64) for p in out.glob("*.npy")}


def close(got, want, what, atol=2e-3):
    """Every output of `want` in `got`: the same infinities, the rest within rtol 2e-3 and `atol`."""
    for n, w in want.items():
        np.testing.assert_array_equal(np.isinf(got[n]), np.isinf(w), err_msg=f"{what}: {n} infinities")
        np.testing.assert_allclose(got[n], w, rtol=2e-3, atol=atol, err_msg=f"{what}: {n}")
