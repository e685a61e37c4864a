"""A loop over a row's columns whose body sums a window of rows of the same column (bench/corpus/348's
separable box blur, pass 2: `T.sum(hsum[b, c, rows[lo:hi], cols], axis=0)` with lo, hi = i -+ R clipped
to the image): pgpu-form-blocking runs the window as an ordered loop and blocks the COLUMNS (each trip one
[BLOCK] read of consecutive columns). It blocked the window instead: each column a trip of a scalar loop,
its 512-lane block holding at most 2R + 1 = 15 rows (16.4 ms on the H100 against torch.compile's 2.79).

Checked against the NumPy reference on the KIR interpreter, on the pgpu interpreter after the whole shared
pipeline (`tessel run --stage pgpu`, shuffled program order) at two bindings of BLOCK, and the generated
Triton under TRITON_INTERPRET=1, at odd shapes (one pixel, rows fewer than the window, primes, widths no
block size divides).
"""
import os
import pathlib
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

from conftest import corpus, run_stage  # noqa: E402


SHAPES = [dict(B=1, C=1, H=1, W=1), dict(B=1, C=2, H=5, W=17), dict(B=2, C=1, H=23, W=37),
          dict(B=1, C=1, H=3, W=601)]


@pytest.mark.parametrize("shape", SHAPES, ids=[f"B{s['B']}C{s['C']}H{s['H']}W{s['W']}" for s in SHAPES])
def test_box_blur_matches_reference(tessel_bin, root, shape):
    mod = corpus(root, "348_separable_box_blur")
    inputs = mod.inputs(shape, np.random.default_rng(shape["H"] * 5 + shape["W"]))
    want = mod.reference(**inputs)["out"]
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_stage(tessel_bin, mod.KERNEL, "kir", shape, inputs, tmp) / "out.npy")
        np.testing.assert_allclose(got, want, **mod.TOLERANCE, err_msg="kir")
        for block in (64, 512):  # several column blocks with a partial last one, and one block a row
            got = np.load(run_stage(tessel_bin, mod.KERNEL, "pgpu", shape, inputs, tmp, {"BLOCK": block})
                          / "out.npy")
            np.testing.assert_allclose(got, want, **mod.TOLERANCE, err_msg=f"pgpu BLOCK={block}")
    if shape["B"] * shape["C"] * shape["H"] > 10:
        return  # TRITON_INTERPRET runs a program a row in each pass: the smaller shapes keep the tier cheap
    import torch
    out = torch.full(inputs["img"].shape, float("nan"))
    mod.KERNEL(torch.from_numpy(inputs["img"]), out)
    np.testing.assert_allclose(out.numpy(), want, **mod.TOLERANCE, err_msg="triton")


def test_box_blur_blocks_the_columns(tessel_bin, root):
    """No reduction left in pgpu: the window is an ordered loop carrying a [BLOCK] column accumulator,
    its reads of the horizontal sums [BLOCK] fragments of consecutive columns; a remark says why."""
    mod = corpus(root, "348_separable_box_blur")
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "k.mlir"
        src.write_text(mod.KERNEL.kir({}))
        res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=pgpu", "--remarks"],
                             capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    text = res.stdout
    assert "pgpu.range_reduce" not in text and "pgpu.reduce " not in text, text
    loops = [ln for ln in text.splitlines() if "pgpu.for" in ln and "iter_args" in ln]
    assert any("iter_args(%cst : f32) -> f32" not in ln and "!pgpu.fragment<f32, [BLOCK]>" in ln
               for ln in loops), loops
    reads = [ln for ln in text.splitlines() if "pgpu.buffer_load" in ln]
    assert reads and all("-> !pgpu.fragment<f32, [BLOCK]>" in ln for ln in reads), reads
    assert "inner reduction(s) reading along this loop's axis contiguously run as ordered loops" in res.stderr
