"""Split-K on ordinary GEMMs of two views (pgpu-split-contractions, issue 41) against cuBLAS, one process.

    python3 bench/splitk_check.py [--out lab/results] [--cpu-smoke] [--sweep]

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

The third row is corpus 159's weight gradient dW = dY^T X (bf16 dY [T, O], X [T, I], f32 dW; T = 65536,
O = I = 1024: 64 tiles of 128 x 128, 1024 K steps, the reduced axis the leading axis of both views), checked
and timed the same way against torch.matmul(dY.t(), X). On the CPU its call default is SPLIT_K 4 at STAGES 6
(test_split_contractions.py) and its sm_90 compile pipelines the chunk's K loop, yet the corpus timed it at
0.32 ms in both split builds (s35, s36): there is no unsplit timing to compare with, which this row gives.
Every row also times the call's defaults with the split rule off ("nosplit_defaults": the tiles then narrow
to fill the multiprocessors, as before split-K; 159: 64 x 128 x 128 tiles, 4 warps, 4 stages). The unsplit
binding (SPLIT_K 1, the other defaults kept) may fail to compile (159: the model takes 6 stages there, Triton
asks more shared memory than the H100 has): noted as unsplit_error, the row goes on.
--sweep: every SPLIT_K candidate timed at each shape, the other parameters at the call's defaults (STAGES
lowered to the deepest the resource model allows where the default's does not fit), checked first; the row's
"sweep" maps SPLIT_K to (STAGES, milliseconds or the error). With --cpu-smoke, --sweep checks every candidate
at the small shapes (more chunks than K steps: empty chunks).

--cpu-smoke: the correctness check only, under TRITON_INTERPRET=1 at small shapes with the same skew
(few tiles, a K loop of 32+ steps at the default TILE_K): the defaults (SPLIT_K 1 there: CPU tensors name
no multiprocessors), SPLIT_K 1 and SPLIT_K 4 bound.
"""
import argparse
import datetime
import json
import math
import os
import pathlib
import sys
import traceback

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHAPES = [dict(M=16, K=65536, N=256), dict(M=512, K=65536, N=512)]
WEIGHT_GRAD = dict(T=65536, O=1024, I=1024)  # corpus 159's BENCH_SHAPE
SMOKE_SHAPES = [dict(M=5, K=2113, N=19), dict(M=17, K=4099, N=33), dict(T=4099, O=19, I=33)]


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


def load_weight_grad():
    sys.path.insert(0, str(ROOT / "bench" / "corpus"))
    import _harness
    return _harness.load(_harness.resolve(["159"])[0]).KERNEL


def operands(torch, shape, device):
    """(views, f64 product, torch's product) of a row: A @ B (M, K, N) or corpus 159's dY^T X (T, O, I)."""
    gen = torch.Generator().manual_seed(shape.get("M", shape.get("O")) * 7 + shape.get("N", shape.get("I")))
    if "T" in shape:
        dy = nonzero(torch, (shape["T"], shape["O"]), device, gen)
        x = nonzero(torch, (shape["T"], shape["I"]), device, gen)
        dw = torch.full((shape["O"], shape["I"]), float("nan"), dtype=torch.float32, device=device)
        return (dy, x, dw), dy.double().t() @ x.double(), lambda: torch.matmul(dy.t(), x).float()
    a = nonzero(torch, (shape["M"], shape["K"]), device, gen)
    b = nonzero(torch, (shape["K"], shape["N"]), device, gen)
    c = torch.full((shape["M"], shape["N"]), float("nan"), dtype=torch.bfloat16, device=device)
    return (a, b, c), a.double() @ b.double(), lambda: torch.matmul(a, b)


def check(torch, kernel, shape, device, params=None) -> dict:
    """tessel's C and torch's C against an f64 product; raises when tessel is off by more than 1% of max |C|."""
    views, want, peer = operands(torch, shape, device)
    c = views[-1]
    if params is None:
        kernel(*views)
    else:
        kernel.launch(*views, params=params)
    scale = float(want.abs().max())
    ours = float((c.double() - want).abs().max())
    theirs = float((peer().double() - want).abs().max())
    if not ours <= 1e-2 * scale:  # NaN (an unwritten element) fails too
        raise AssertionError(f"{shape} params={params}: tessel is {ours} off the f64 product (max |C| {scale}; "
                             f"torch.matmul {theirs})")
    return {"max_abs_C": scale, "tessel_err": ours, "torch_err": theirs, "views": views, "peer": peer}


def nosplit_defaults(kernel, views) -> dict:
    """The call's defaults with the split rule off (python `_split_k` answering None): what an untuned call
    bound before split-K (159: 64 x 128 tiles, TILE_K 128, 128 programs; its timing before any split build)."""
    kernel._split_k = lambda *a, **kw: None  # shadows the method on this object only
    try:
        return {k: int(v) for k, v in kernel.call_defaults(*views).items()}
    finally:
        del kernel._split_k


def fitting(kernel, params: dict):
    """`params`, or with STAGES lowered to the deepest the resource model allows (None where none fits)."""
    prune = kernel._prune({})
    for stages in sorted((c for c in kernel._space({})["STAGES"][0] if c <= params["STAGES"]), reverse=True):
        if prune({**params, "STAGES": stages}) is None:
            return {**params, "STAGES": stages}
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="write DATE-splitk-check.json there")
    ap.add_argument("--cpu-smoke", action="store_true")
    ap.add_argument("--sweep", action="store_true", help="time every SPLIT_K candidate too")
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
    kernels = {"matmul": load_matmul(), "weight_grad": load_weight_grad()}
    rows, failed = [], False
    for shape in (SMOKE_SHAPES if args.cpu_smoke else SHAPES + [WEIGHT_GRAD]):
        row = {"shape": shape}
        rows.append(row)
        kernel = kernels["weight_grad" if "T" in shape else "matmul"]
        try:
            got = check(torch, kernel, shape, device)
            views, peer = got.pop("views"), got.pop("peer")
            row.update(got)
            defaults = {k: int(v) for k, v in kernel.call_defaults(*views).items()}
            row["defaults"] = defaults
            unsplit = fitting(kernel, {**defaults, "SPLIT_K": 1})
            if args.cpu_smoke:
                check(torch, kernel, shape, device, unsplit)
                check(torch, kernel, shape, device, nosplit_defaults(kernel, views))
                for split in (kernel._space({})["SPLIT_K"][0] if args.sweep else (4,)):
                    check(torch, kernel, shape, device, fitting(kernel, {**defaults, "SPLIT_K": split}))
                print(f"{shape}: ok (defaults SPLIT_K {defaults.get('SPLIT_K')}; tessel err {row['tessel_err']:.3g}, "
                      f"torch err {row['torch_err']:.3g}, max |C| {row['max_abs_C']:.3g})")
                continue
            from triton.testing import do_bench
            row["tessel_ms"] = do_bench(lambda: kernel(*views), warmup=25, rep=100, return_mode="median")
            row["unsplit"] = unsplit
            # 159 at SPLIT_K 1 keeps STAGES 6: the resource model takes it (196608 bytes, the store through
            # pointers), but its sm_90 compile asks 262240 (the flattened walk keeps the six stages live across
            # the epilogue's 64 KiB layout conversion), past the H100's 232448.
            try:
                check(torch, kernel, shape, device, unsplit)
                row["tessel_unsplit_ms"] = do_bench(lambda: kernel.launch(*views, params=unsplit), warmup=25,
                                                    rep=100, return_mode="median")
            except Exception as e:  # noqa: BLE001: noted; the no-split defaults below are the comparison then
                row["unsplit_error"] = f"{type(e).__name__}: {str(e)[:200]}"
                row["tessel_unsplit_ms"] = math.nan
            row["torch_ms"] = do_bench(peer, warmup=25, rep=100, return_mode="median")
            nosplit = nosplit_defaults(kernel, views)
            row["nosplit_defaults"] = nosplit
            check(torch, kernel, shape, device, nosplit)
            row["tessel_nosplit_defaults_ms"] = do_bench(lambda: kernel.launch(*views, params=nosplit), warmup=25,
                                                         rep=100, return_mode="median")
            if args.sweep:
                row["sweep"] = {}
                for split in kernel._space({})["SPLIT_K"][0]:
                    params = fitting(kernel, {**defaults, "SPLIT_K": split})
                    if params is None:
                        continue
                    try:  # a binding Triton refuses (its shared memory past the model's) is noted, not fatal
                        check(torch, kernel, shape, device, params)
                        row["sweep"][split] = (params["STAGES"], do_bench(lambda: kernel.launch(*views, params=params),
                                                                          warmup=25, rep=100, return_mode="median"))
                    except Exception as e:  # noqa: BLE001
                        row["sweep"][split] = (params["STAGES"], f"{type(e).__name__}: {str(e)[:200]}")
                print(f"{shape}: SPLIT_K -> (STAGES, ms) {row['sweep']}")
            flops = 2 * math.prod(shape.values())
            row["tessel_tflops"] = flops / row["tessel_ms"] / 1e9
            row["vs_cublas"] = row["torch_ms"] / row["tessel_ms"]
            row["split_gain"] = row["tessel_unsplit_ms"] / row["tessel_ms"]
            print(f"{'x'.join(str(v) for v in shape.values())}: tessel {row['tessel_ms']:.4f} ms "
                  f"(SPLIT_K {defaults.get('SPLIT_K')}, {defaults.get('TILE_0')}x{defaults.get('TILE_1')}x"
                  f"{defaults.get('TILE_K')}, STAGES {defaults.get('STAGES')}), "
                  f"unsplit {row['tessel_unsplit_ms']:.4f} ms, "
                  f"no-split defaults {row['tessel_nosplit_defaults_ms']:.4f} ms {nosplit}, "
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
