"""cuda-tile 1.7.0 fails inside its front end (InternalError: KeyError '$N' in generate_bytecode) on a
`for` loop whose bound depends on the enclosing loop's variable and that carries a value the enclosing
body sets: the shape tessel's cuTile source has in py/attention[CAUSAL=False]'s element-wise branch (the
GPU matrix, lab/results/2026-12-01-h200-matrix-cutile.json: every case of it that launches fails so).
No GPU is needed: the bytecode is exported on the CPU.

    python3 lab/experiments/cutile_nested_loop.py [TOOLCHAIN_DIR]   # default ~/.cache/tessel/cutile-toolchain

prints one line per kernel; `fails` fails, the three beside it (each one ingredient removed) compile.

Cause (read in cuda/tile/_passes/code_motion.py, 1.7.0): loop-invariant code motion decides whether a
loop may leave its enclosing loop's body from the loop's initial values and body only, not from its
start/stop/step; the inner loop (pure body, constant init) moves out, ahead of `j`, and writing the
bytecode finds no value for the bound. Code motion never moves an op out of an `if` branch, so
`guarded` (the spelling tessel's cuTile serializer now gives such loops: `if lower < upper:`, exact for
a positive step) compiles.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from tessel import _cutile  # noqa: E402

_cutile.toolchain(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path.home() / ".cache" / "tessel" / "cutile-toolchain")
import cuda.tile as ct  # noqa: E402
from cuda.tile.compilation import (ArrayConstraint, CallingConvention, KernelSignature,  # noqa: E402
                                   ScalarConstraint, export_kernel)


@ct.kernel
def fails(out, n):  # inner bound from j, acc set in j's body and carried by the inner loop
    for j in range(0, n, 1):
        acc = ct.full((), 0, ct.int32)
        for i in range(0, j, 1):
            acc = acc + 1
        ct.store(out, index=(j,), tile=ct.reshape(acc, (1,)))


@ct.kernel
def bound_from_n(out, n):
    for j in range(0, n, 1):
        acc = ct.full((), 0, ct.int32)
        for i in range(0, n, 1):
            acc = acc + 1
        ct.store(out, index=(j,), tile=ct.reshape(acc, (1,)))


@ct.kernel
def nothing_carried(out, n):
    for j in range(0, n, 1):
        for i in range(0, j, 1):
            ct.store(out, index=(i,), tile=ct.full((1,), 1, ct.int32))


@ct.kernel
def carried_from_outside(out, n):
    acc = ct.full((), 0, ct.int32)
    for j in range(0, n, 1):
        for i in range(0, j, 1):
            acc = acc + 1
    ct.store(out, index=(0,), tile=ct.reshape(acc, (1,)))


@ct.kernel
def guarded(out, n):  # `fails` with the inner loop under `if 0 < j:` (the serializer's spelling)
    for j in range(0, n, 1):
        acc = ct.full((), 0, ct.int32)
        if 0 < j:
            for i in range(0, j, 1):
                acc = acc + 1
        ct.store(out, index=(j,), tile=ct.reshape(acc, (1,)))


def main():
    arr = ArrayConstraint(dtype=ct.int32, ndim=1, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=[],
                          may_alias_internally=False)
    sig = KernelSignature([arr, ScalarConstraint(ct.int32)], calling_convention=CallingConvention.cutile_python_v1())
    out = pathlib.Path("/tmp/cutile_nested_loop.tileirbc")
    for name in ("fails", "bound_from_n", "nothing_carried", "carried_from_outside", "guarded"):
        try:
            export_kernel(globals()[name], [sig], str(out), gpu_code="sm_90", output_format="tileir_bytecode")
            print(f"{name}: compiles")
        except Exception as e:  # noqa: BLE001 (the point is to show it)
            print(f"{name}: {type(e).__name__} ({e.__cause__!r})")


if __name__ == "__main__":
    main()
