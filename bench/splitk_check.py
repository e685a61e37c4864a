"""Split-K on ordinary GEMMs of two views (pgpu-split-contractions, issue 41) against cuBLAS, one process.

    python3 bench/splitk_check.py [--out lab/results] [--cpu-smoke]

examples/matmul.py (bf16 A [M, K] @ B [K, N], f32 accumulator, bf16 C: what torch.matmul does in bf16) at the
shapes where the output has few tiles and K is long, so an untuned call splits the K loop (python
`_split_k`: fewer tiles than 3/4 of the multiprocessors, a K loop of at least 32 steps):
M x K x N = 16 x 65536 x 256 (a skinny GEMM) and 512 x 65536 x 512 (the Gram-like square case).
Per shape, correctness first, on random inputs that are never zero: tessel's C (the call's defaults) and
torch.matmul's C against an f64 product of the same bf16 inputs; tessel must be within 1% of the largest
|C| element-wise, and is reported beside torch's own error. Only then times (triton.testing.do_bench,
CUDA-event medians): tessel's call (its defaults, printed: SPLIT_K, tiles, STAGES), tessel bound at
SPLIT_K = 1 (the unsplit program, the other defaults kept) and torch.matmul. Ratios are torch / tessel.
A shape's failure is printed and the run goes on; the exit status is 1 when any check failed.

--cpu-smoke: the correctness check only, under TRITON_INTERPRET=1 at small shapes with the same skew
(few tiles, a K loop of 32+ steps at the default TILE_K): the defaults (SPLIT_K 1 there: CPU tensors name
no multiprocessors), SPLIT_K 1 and SPLIT_K 4 bound.
"""
import argparse
import datetime
import json
import os
import pathlib
import sys
import traceback

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHAPES = [dict(M=16, K=65536, N=256), dict(M=512, K=65536, N=512)]
SMOKE_SHAPES = [dict(M=5, K=2113, N=19), dict(M=17, K=4099, N=33)]


def load_matmul():
    import importlib.util
    sys.path.insert(0, str(ROOT / "python"))
    spec = importlib.util.spec_from_file_location("splitk_check_matmul", ROOT / "examples" / "matmul.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.matmul


def nonzero(torch, shape, device, gen):
    x = torch.rand(*shape, generator=gen) * 0.75 + 0.25
    sign = torch.where(torch.rand(*shape, generator=gen) < 0.5, -1.0, 1.0)
    return (x * sign).to(device=device, dtype=torch.bfloat16)


def check(torch, kernel, shape, device, params=None) -> dict:
    """tessel's C and torch's C against an f64 product; raises when tessel is off by more than 1% of max |C|."""
    gen = torch.Generator().manual_seed(shape["M"] * 7 + shape["N"])
    a = nonzero(torch, (shape["M"], shape["K"]), device, gen)
    b = nonzero(torch, (shape["K"], shape["N"]), device, gen)
    c = torch.full((shape["M"], shape["N"]), float("nan"), dtype=torch.bfloat16, device=device)
    if params is None:
        kernel(a, b, c)
    else:
        kernel.launch(a, b, c, params=params)
    want = a.double() @ b.double()
    scale = float(want.abs().max())
    ours = float((c.double() - want).abs().max())
    theirs = float((torch.matmul(a, b).double() - want).abs().max())
    if not ours <= 1e-2 * scale:  # NaN (an unwritten element) fails too
        raise AssertionError(f"{shape} params={params}: tessel is {ours} off the f64 product (max |C| {scale}; "
                             f"torch.matmul {theirs})")
    return {"max_abs_C": scale, "tessel_err": ours, "torch_err": theirs, "a": a, "b": b, "c": c}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="write DATE-splitk-check.json there")
    ap.add_argument("--cpu-smoke", action="store_true")
    args = ap.parse_args()
    if args.cpu_smoke:
        os.environ["TRITON_INTERPRET"] = "1"
        sys.path.insert(0, str(ROOT / "bench" / "corpus"))
        from _harness import interpreter_bf16_dot
        interpreter_bf16_dot()  # the interpreter multiplies bf16 bit patterns otherwise (triton#11584)
    import torch
    device = "cpu" if args.cpu_smoke else "cuda"
    if not args.cpu_smoke and not torch.cuda.is_available():
        sys.exit("splitk_check: no CUDA device (use --cpu-smoke for the correctness check on the CPU)")
    kernel = load_matmul()
    rows, failed = [], False
    for shape in (SMOKE_SHAPES if args.cpu_smoke else SHAPES):
        row = {"shape": shape}
        rows.append(row)
        try:
            got = check(torch, kernel, shape, device)
            a, b, c = got.pop("a"), got.pop("b"), got.pop("c")
            row.update(got)
            defaults = {k: int(v) for k, v in kernel.call_defaults(a, b, c).items()}
            row["defaults"] = defaults
            unsplit = {**defaults, "SPLIT_K": 1}
            check(torch, kernel, shape, device, unsplit)
            if args.cpu_smoke:
                check(torch, kernel, shape, device, {**defaults, "SPLIT_K": 4})
                print(f"{shape}: ok (defaults SPLIT_K {defaults.get('SPLIT_K')}; tessel err {row['tessel_err']:.3g}, "
                      f"torch err {row['torch_err']:.3g}, max |C| {row['max_abs_C']:.3g})")
                continue
            from triton.testing import do_bench
            row["tessel_ms"] = do_bench(lambda: kernel(a, b, c), warmup=25, rep=100, return_mode="median")
            row["tessel_unsplit_ms"] = do_bench(lambda: kernel.launch(a, b, c, params=unsplit), warmup=25, rep=100,
                                                return_mode="median")
            row["torch_ms"] = do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100, return_mode="median")
            flops = 2 * shape["M"] * shape["N"] * shape["K"]
            row["tessel_tflops"] = flops / row["tessel_ms"] / 1e9
            row["vs_cublas"] = row["torch_ms"] / row["tessel_ms"]
            row["split_gain"] = row["tessel_unsplit_ms"] / row["tessel_ms"]
            print(f"{shape['M']}x{shape['K']}x{shape['N']}: tessel {row['tessel_ms']:.4f} ms "
                  f"(SPLIT_K {defaults.get('SPLIT_K')}, {defaults.get('TILE_0')}x{defaults.get('TILE_1')}x"
                  f"{defaults.get('TILE_K')}, STAGES {defaults.get('STAGES')}), unsplit {row['tessel_unsplit_ms']:.4f} ms, "
                  f"cuBLAS {row['torch_ms']:.4f} ms: {row['vs_cublas']:.2f}x cuBLAS, split {row['split_gain']:.2f}x; "
                  f"errors vs f64 tessel {row['tessel_err']:.3g} torch {row['torch_err']:.3g}")
        except Exception as e:  # noqa: BLE001: a shape's failure is reported, the others still run
            failed = True
            row["error"] = f"{type(e).__name__}: {e}"
            traceback.print_exc()
            print(f"{shape}: FAILED {row['error']}")
    if args.out and not args.cpu_smoke:
        device_name = torch.cuda.get_device_name()
        out = pathlib.Path(args.out) / f"{datetime.date.today().isoformat()}-splitk-check.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"device": device_name, "rows": rows}, indent=1) + "\n")
        print(f"wrote {out}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
