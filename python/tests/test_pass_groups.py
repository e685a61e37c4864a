"""The pgpu interpreter after every pass group, against the KIR interpreter (issue 6).

The registered pipeline stops after each of its groups (`tessel groups`; `tessel-opt
--tessel-pipeline=stop-after=GROUP`: construction, multi-axis tiles, mapping refinement, blocking,
row staging, predicate narrowing, Triton legalization), and the program after each is run on the
pgpu interpreter with the same seeded inputs and with small parameter bindings. Every intermediate
program must compute what the KIR kernel computes. test_matrix.py runs every suite kernel this way
at drawn shapes and bindings.
"""
import os
import subprocess
import tempfile

import numpy as np
import pytest

KERNELS = [
    ("softmax.mlir", {"M": 3, "N": 37}, {}),
    ("layernorm.mlir", {"M": 2, "N": 70}, {"eps": 1e-5}),
    ("gemm.mlir", {"M": 19, "N": 23, "K": 17}, {}),
    ("transpose.mlir", {"M": 19, "N": 33}, {}),
    ("cumsum.mlir:cumsum", {"M": 2, "N": 70}, {}),
    ("vector_add.mlir", {"N": 100}, {"scale": 0.5}),
    ("attention.mlir", {"B": 1, "H": 1, "S": 3, "T": 4, "D": 3}, {"scale": 0.5}),
    ("attention.mlir", {"B": 2, "H": 1, "S": 37, "T": 70, "D": 16}, {"scale": 0.5}),
    ("linear_attention.mlir", {"B": 1, "H": 2, "T": 5, "D": 3, "E": 2}, {}),
]
# Small bindings so blocks, tiles and the staged path's guard are all exercised at these shapes.
PARAMS = {"BLOCK": 64, "BLOCK_P": 256, "TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 2,
          "BLOCK_S": 16, "BLOCK_T": 16, "BLOCK_D": 16}


def run(cmd):
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(map(str, cmd))}\n{res.stderr}"
    return res.stdout


@pytest.mark.parametrize("spec,shapes,scalars", KERNELS, ids=[k[0] for k in KERNELS])
def test_every_pass_group_keeps_the_kernel(tessel_bin, root, spec, shapes, scalars):
    path, _, name = spec.partition(":")
    source = root / "examples" / "kir" / path
    opt = tessel_bin.parent / "tessel-opt"
    shape_arg = ",".join(f"{k}={v}" for k, v in shapes.items())
    extra = [f"--scalar={k}={v}" for k, v in scalars.items()]
    target = f"{source}:{name}" if name else str(source)
    with tempfile.TemporaryDirectory() as tmp:
        run([tessel_bin, "run", target, "--stage", "kir", "--seed", "9", "--shape", shape_arg, "--out",
             f"{tmp}/kir", *extra])
        ref = {p[:-4]: np.load(f"{tmp}/kir/{p}") for p in os.listdir(f"{tmp}/kir") if not p.endswith(".in.npy")}
        for group in run([tessel_bin, "groups"]).split():
            program = f"{tmp}/{group}.mlir"
            with open(program, "w") as f:
                f.write(run([opt, source, f"--tessel-pipeline=stop-after={group}"]))
            declared = open(program).read()
            params = [f"--param={k}={v}" for k, v in PARAMS.items() if f'"{k}"' in declared]
            kernel = [f"{program}:{name}"] if name else [program]
            out = f"{tmp}/{group}-out"
            run([tessel_bin, "run", *kernel, "--seed", "9", "--shape", shape_arg, "--out", out, "--order",
                 "shuffle", *params, *extra])
            # Under numerics = relaxed_normalization a contraction's f32 weights may be rounded to
            # their 16-bit value operand's dtype (kir-to-pgpu): one ulp of the f16 output.
            relaxed = "relaxed_normalization" in source.read_text()
            rtol, atol = (1e-3, 1e-3) if relaxed else (2e-5, 2e-6)
            for key, want in ref.items():
                got = np.load(f"{out}/{key}.npy")
                np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                           err_msg=f"{spec} after {group}: {key}")
