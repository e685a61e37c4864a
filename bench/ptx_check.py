"""Checks the PTX provider on a CUDA machine: every suite kernel it accepts runs through
`tessel run --device=cuda --target=ptx` and through the KIR interpreter on the same seeded inputs
(odd shapes), and the outputs must agree (issue 15's "matches the KIR interpreter at odd shapes").

    python3 bench/ptx_check.py [--tessel build/bin/tessel] [--param THREADS=256] [--only softmax]

Prints one line per kernel and exits non-zero on any mismatch or failure. Without a driver every
kernel fails with the runtime's error (TESSEL_LIBCUDA points the runtime at another libcuda).
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
KIR = ROOT / "examples" / "kir"

# (kernel, shapes, scalars): odd sizes, so blocks, tails and masks are all exercised.
KERNELS = [
    ("vector_add.mlir", {"N": 1000003}, {"scale": 0.5}),
    ("softmax.mlir", {"M": 37, "N": 1029}, {}),
    ("layernorm.mlir", {"M": 37, "N": 1029}, {"eps": 1e-5}),
    ("rmsnorm.mlir", {"M": 37, "N": 1029}, {"eps": 1e-5}),
    ("argmax.mlir", {"M": 37, "N": 1029}, {}),
    ("cross_entropy.mlir", {"M": 37, "C": 1029}, {}),
    ("gemv.mlir", {"M": 37, "K": 1029}, {}),
    ("histogram.mlir", {"N": 10007, "B": 37}, {}),
    ("cumsum.mlir:cumsum", {"M": 5, "N": 1029}, {}),
    ("cumsum.mlir:cumsum_exclusive_reverse", {"M": 5, "N": 1029}, {}),
    ("cummax.mlir", {"M": 5, "N": 1029}, {}),
    ("transpose.mlir", {"M": 37, "N": 129}, {}),
    ("gemm.mlir", {"M": 37, "N": 129, "K": 71}, {}),
    ("batched_gemm.mlir", {"B": 3, "M": 37, "N": 33, "K": 29}, {}),
    ("gemv.mlir", {"M": 1, "K": 5}, {}),
    # One pass over rows shorter than the block (vector groups cut by the tail; rows of 1029 f32 are
    # mostly not 16-byte aligned, so the element-by-element path runs too), and the cyclic layout.
    ("softmax.mlir", {"M": 37, "N": 1029}, {}, ["BLOCK=2048"]),
    ("layernorm.mlir", {"M": 37, "N": 1029}, {"eps": 1e-5}, ["BLOCK=8192", "THREADS=512"]),
    ("cumsum.mlir:cumsum", {"M": 5, "N": 4099}, {}, ["BLOCK=2048"]),
    ("softmax.mlir", {"M": 37, "N": 1029}, {}, ["VECTOR=1"]),
    ("embedding.mlir:embedding_gather", {"T": 37, "V": 11, "D": 65}, {}),
    ("embedding.mlir:embedding_scatter_add", {"T": 37, "V": 11, "D": 65}, {}),
    # Constructed on fragments; its default tiles stage more than the selector's shared-memory budget.
    ("attention.mlir", {"B": 1, "H": 2, "S": 37, "T": 70, "D": 64}, {"scale": 0.125},
     ["BLOCK_S=32", "BLOCK_T=32", "BLOCK_D=64"]),
    ("linear_attention.mlir", {"B": 1, "H": 2, "T": 5, "D": 3, "E": 2}, {}),
]


def run(cmd):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tessel", default=ROOT / "build" / "bin" / "tessel")
    parser.add_argument("--param", action="append", default=[], help="PTX provider parameter NAME=VALUE")
    parser.add_argument("--only", action="append", default=[], help="run only kernels whose spec contains this")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rtol", type=float, default=2e-3)
    parser.add_argument("--atol", type=float, default=2e-3)
    args = parser.parse_args()
    failures = 0
    for spec, shapes, scalars, *own in KERNELS:
        if args.only and not any(o in spec for o in args.only):
            continue
        shape_arg = ",".join(f"{k}={v}" for k, v in shapes.items())
        common = [args.tessel, "run", KIR / spec, "--shape", shape_arg, "--seed", args.seed]
        common += [f"--scalar={k}={v}" for k, v in scalars.items()]
        with tempfile.TemporaryDirectory() as tmp:
            ref, got = pathlib.Path(tmp, "interp"), pathlib.Path(tmp, "cuda")
            r = run(common + ["--out", ref])
            if r.returncode:
                print(f"FAIL {spec}: interpreter: {r.stderr.strip()}")
                failures += 1
                continue
            cuda = common + ["--device=cuda", "--target=ptx", "--out", got]
            cuda += [f"--param={p}" for p in args.param + (own[0] if own else [])]
            r = run(cuda)
            if r.returncode:
                print(f"FAIL {spec}: cuda: {r.stderr.strip()}")
                failures += 1
                continue
            worst, bad = 0.0, []
            for expected_path in sorted(ref.glob("*.npy")):
                if expected_path.name.endswith(".in.npy"):
                    continue
                expected = np.load(expected_path)
                actual = np.load(got / expected_path.name)
                if expected.dtype.kind == "f":
                    same = np.allclose(actual, expected, rtol=args.rtol, atol=args.atol, equal_nan=True)
                    finite = np.isfinite(expected)
                    if finite.any():
                        diff = np.abs(actual[finite].astype(np.float64) - expected[finite].astype(np.float64))
                        worst = max(worst, float("inf") if np.isnan(diff).any() else float(diff.max()))
                else:
                    same = np.array_equal(actual, expected)
                if not same:
                    bad.append(expected_path.stem)
            if bad:
                print(f"FAIL {spec} {shape_arg}: mismatch in {', '.join(bad)} (max abs diff {worst:.3g})")
                failures += 1
            else:
                print(f"ok   {spec} {shape_arg} (max abs diff {worst:.3g})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
