"""tileiras 13.4 crashes (signal 11, on the CPU too) on a 0-d `ct.gather` whose dtype is that of a 0-d
value carried through two loops that read memory, the second loop continuing the first's result: the
shape tessel's cuTile source had in cross_entropy's blocked branch (the row's max and sum loops, then the
label's logit at (m, target[m])) and in linear attention's element-wise branch (the GPU matrix's crash
dumps, lab/experiments/cutile_tileiras_crash_dumps.tar.xz). Minimized by hand from those sources.

    python3 lab/experiments/cutile_scalar_gather.py [TOOLCHAIN_DIR]   # default ~/.cache/tessel/cutile-toolchain

compiles each kernel below to an sm_90 cubin (tileiras runs on the CPU) and prints one line per kernel:
`fails` crashes; the kernels beside it (each one ingredient removed or changed) compile, and so does
`one_lane`, the spelling tessel's cuTile serializer now gives every 0-d gather: a gather of a one-lane
tile (the same coordinates, mask and fill) reshaped to 0-d.
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
def fails(x, out, n):  # two loops carry acc (f32), then a 0-d f32 gather
    m = ct.bid(0)
    acc = ct.full((), 0.0, ct.float32)
    for j in range(0, n, 512):
        acc = acc + ct.sum(ct.gather(x, (m, ct.arange(512, dtype=ct.int32) + j)))
    for j in range(0, n, 512):
        acc = acc + ct.sum(ct.gather(x, (m, ct.arange(512, dtype=ct.int32) + j)))
    ct.scatter(out, (m,), acc - ct.gather(x, (m, 0)))


@ct.kernel
def one_loop(x, out, n):
    m = ct.bid(0)
    acc = ct.full((), 0.0, ct.float32)
    for j in range(0, n, 512):
        acc = acc + ct.sum(ct.gather(x, (m, ct.arange(512, dtype=ct.int32) + j)))
    ct.scatter(out, (m,), acc - ct.gather(x, (m, 0)))


@ct.kernel
def two_accumulators(x, out, n):  # each loop carries its own value
    m = ct.bid(0)
    a = ct.full((), 0.0, ct.float32)
    for j in range(0, n, 512):
        a = a + ct.sum(ct.gather(x, (m, ct.arange(512, dtype=ct.int32) + j)))
    b = ct.full((), 0.0, ct.float32)
    for j in range(0, n, 512):
        b = b + ct.sum(ct.gather(x, (m, ct.arange(512, dtype=ct.int32) + j)))
    ct.scatter(out, (m,), a + b - ct.gather(x, (m, 0)))


@ct.kernel
def no_reads_in_loops(x, out, n):
    m = ct.bid(0)
    acc = ct.full((), 0.0, ct.float32)
    for j in range(0, n, 512):
        acc = acc + ct.astype(j, ct.float32)
    for j in range(0, n, 512):
        acc = acc + ct.astype(j, ct.float32)
    ct.scatter(out, (m,), acc - ct.gather(x, (m, 0)))


@ct.kernel
def carried_f64(x, out, n):  # the carried value's dtype differs from the gather's
    m = ct.bid(0)
    acc = ct.full((), 0.0, ct.float64)
    for j in range(0, n, 512):
        acc = acc + ct.astype(ct.sum(ct.gather(x, (m, ct.arange(512, dtype=ct.int32) + j))), ct.float64)
    for j in range(0, n, 512):
        acc = acc + ct.astype(ct.sum(ct.gather(x, (m, ct.arange(512, dtype=ct.int32) + j))), ct.float64)
    ct.scatter(out, (m,), ct.astype(acc, ct.float32) - ct.gather(x, (m, 0)))


@ct.kernel
def one_lane(x, out, n):  # `fails` with the gather spelled as tessel's serializer spells it
    m = ct.bid(0)
    acc = ct.full((), 0.0, ct.float32)
    for j in range(0, n, 512):
        acc = acc + ct.sum(ct.gather(x, (m, ct.arange(512, dtype=ct.int32) + j)))
    for j in range(0, n, 512):
        acc = acc + ct.sum(ct.gather(x, (m, ct.arange(512, dtype=ct.int32) + j)))
    label = ct.reshape(ct.gather(x, (ct.full((1,), m, ct.int32), ct.full((1,), 0, ct.int32))), ())
    ct.scatter(out, (m,), acc - label)


def main():
    def array(ndim):
        return ArrayConstraint(dtype=ct.float32, ndim=ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                               alias_groups=[], may_alias_internally=False)
    sig = KernelSignature([array(2), array(1), ScalarConstraint(ct.int32)],
                          calling_convention=CallingConvention.cutile_python_v1())
    out = pathlib.Path("/tmp/cutile_scalar_gather.cubin")
    for name in ("fails", "one_loop", "two_accumulators", "no_reads_in_loops", "carried_f64", "one_lane"):
        try:
            export_kernel(globals()[name], [sig], str(out), gpu_code="sm_90", output_format="cubin")
            print(f"{name}: compiles")
        except Exception as e:  # noqa: BLE001 (the point is to show it)
            print(f"{name}: {type(e).__name__}: {str(e).strip().splitlines()[0][:120]}")


if __name__ == "__main__":
    main()
