"""Runtime loops that carry values per member, against the KIR interpreter on random inputs at odd shapes
(empty and one-element extents, primes, extents that are multiples of no block):

  * Horner's rule over runtime coefficients (bench/corpus/205): a loop per element whose body reads only
    values every element shares (c[P - 1 - j]). pgpu-refine-mapping sizes its programs like elementwise
    work (BLOCK_P 256..4096), one block of lanes a program with the coefficient loop inside, each
    coefficient a scalar read per program;

each checked on the pgpu interpreter after the whole shared pipeline (`tessel run --stage pgpu`, shuffled
program order) at two bindings of the block parameter, and the generated Triton under TRITON_INTERPRET=1.
"""
import importlib.util
import os
import pathlib
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel  # noqa: E402,F401
from conftest import run_stage  # noqa: E402


def corpus(root, name):
    spec = importlib.util.spec_from_file_location(f"_corpus_{name}", root / "bench" / "corpus" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def compiled_pgpu(tessel_bin, kernel):
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "k.mlir"
        src.write_text(kernel.kir({}))
        res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


HORNER_SHAPES = [dict(N=0, P=3), dict(N=1, P=0), dict(N=1, P=1), dict(N=7, P=0), dict(N=127, P=3),
                 dict(N=4099, P=5), dict(N=1031, P=16)]


@pytest.mark.parametrize("shape", HORNER_SHAPES, ids=[f"N{s['N']}P{s['P']}" for s in HORNER_SHAPES])
def test_horner_matches_kir(tessel_bin, root, shape):
    mod = corpus(root, "205_horner_polynomial")
    inputs = mod.inputs(shape, np.random.default_rng(shape["N"] * 3 + shape["P"]))
    want = mod.reference(**inputs)["y"]
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_stage(tessel_bin, mod.KERNEL, "kir", shape, inputs, tmp) / "y.npy")
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg="kir")
        # One block of BLOCK_P lanes a program: several programs and a partial last one, or one program.
        for block_p in (256, 4096):
            got = np.load(run_stage(tessel_bin, mod.KERNEL, "pgpu", shape, inputs, tmp, {"BLOCK_P": block_p})
                          / "y.npy")
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"pgpu BLOCK_P={block_p}")
    import torch
    y = torch.full((shape["N"],), float("nan"))
    mod.KERNEL(torch.from_numpy(inputs["x"]), torch.from_numpy(inputs["c"]), y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-5, err_msg="triton")


def test_horner_runs_a_block_of_elements_per_program(tessel_bin, root):
    """The elementwise BLOCK_P domain; each program's lanes are one fragment carried through the
    coefficient loop, whose coefficient is one scalar read per trip (not a read per lane)."""
    text = compiled_pgpu(tessel_bin, corpus(root, "205_horner_polynomial").KERNEL)
    assert '#pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>' in text, text
    loops = [ln for ln in text.splitlines() if "pgpu.for" in ln and "iter_args" in ln]
    assert loops and all("!pgpu.fragment<f32, [BLOCK_P]>" in ln for ln in loops), loops
    reads = [ln for ln in text.splitlines() if "pgpu.load %c[" in ln]
    assert reads and all(ln.rstrip().endswith("-> f32") for ln in reads), reads
