"""Ragged grouped GEMM (issue 16) against torch._grouped_mm and a loop of torch.matmul, one process.

The case is the issue's bar: bf16, G = 64 groups with random M_g summing to M = 32768 (three of them
empty), N = K = 4096 (bench/gemm_kernels.py's grouped_gemm_bf16: examples/grouped_gemm.py with bf16
operands and a bf16 C, f32 accumulation). Its rows are tiled by pgpu-form-tiles' segment walk (each
group's bounds read from OFFS in the program). The Triton sources are generated ahead, one module
per binding of the declared parameters:
    python3 bench/grouped_gemm.py gen OUTDIR
and timed on the GPU machine, without the compiler:
    python3 bench/grouped_gemm.py time OUTDIR [--out lab/results]
Correctness first: every binding's C is compared with an f64 product of the same random (never zero)
inputs, and on a second OFFS whose groups end before M (a zero-filled tail, empty groups, a group of
one row) over a C filled with garbage, before anything is timed. Times are CUDA-event medians.
"""
import argparse
import datetime
import importlib.util
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
G, M, N, K = 64, 32768, 4096, 4096
# (TILE_1, TILE_2, TILE_K, GROUP_1, PERSIST, WARPS, STAGES, TMA); None: the declared defaults. Session 14's
# probe (lab/experiments/grouped_session14): 128x128 tiles with tensor descriptors and 5 stages fastest.
BINDINGS = [
    None,
    (128, 128, 64, 8, 1, 8, 4, 0),
    (128, 128, 64, 8, 1, 8, 4, 1),
    (128, 128, 64, 8, 1, 8, 5, 1),
    (128, 128, 64, 8, 1, 8, 6, 1),
    (128, 256, 64, 8, 1, 8, 3, 1),
    # Session 15 probes of the tile order and shape (ncu: the 128x128 kernel read 5.5 GB from DRAM
    # against CUTLASS's 2.7 GB, L2 hit rate 48% against 61%).
    (128, 128, 64, 1, 1, 8, 5, 1),
    (128, 128, 64, 4, 1, 8, 5, 1),
    (256, 128, 64, 8, 1, 8, 3, 1),
    (128, 128, 128, 8, 1, 8, 3, 1),
]
NAMES = ["TILE_1", "TILE_2", "TILE_K", "GROUP_1", "PERSIST", "WARPS", "STAGES", "TMA"]


def name_of(binding):
    return "defaults" if binding is None else "b_" + "_".join(map(str, binding))


def gen(outdir):
    out = pathlib.Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    tessel = str(ROOT / "build" / "bin" / "tessel")
    env = {"PYTHONPATH": str(ROOT / "python") + ":" + str(ROOT / "bench")}
    kir = subprocess.run([sys.executable, "-m", "tessel", "emit", "bench/gemm_kernels.py:grouped_gemm_bf16"],
                         cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
    path = out / "grouped.kir.mlir"
    path.write_text(kir)
    for binding in BINDINGS:
        params = [] if binding is None else [f"--param={n}={v}" for n, v in zip(NAMES, binding)]
        subprocess.run([tessel, "compile", str(path), "--target=triton", "--emit=source", *params, "-o",
                        str(out / (name_of(binding) + ".py"))], check=True)
    path.unlink()
    print(f"generated {len(BINDINGS)} modules in {out}")


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_all(outdir, results, every=False):
    import torch
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    from run_bench import timed, write_results
    torch.manual_seed(0)
    gen_ = torch.Generator().manual_seed(0)

    def nonzero(*shape):
        x = torch.rand(*shape, device="cuda") * 0.75 + 0.25
        return (x * torch.where(torch.rand(*shape, device="cuda") < 0.5, -1.0, 1.0)).to(torch.bfloat16)

    # Random group sizes summing to M, three groups empty.
    cuts = torch.sort(torch.randint(0, M + 1, (G - 1,), generator=gen_)).values
    sizes = torch.diff(torch.cat([torch.tensor([0]), cuts, torch.tensor([M])]))
    for g in (5, 17, 40):
        sizes[g + 1] += sizes[g]
        sizes[g] = 0
    offs = torch.cumsum(sizes, 0).to(torch.int32).cuda()
    # A second OFFS for correctness only: groups end before M (a zero tail), a group of one row.
    sizes2 = sizes.clone() // 2
    sizes2[3] = 1
    offs2 = torch.cumsum(sizes2, 0).to(torch.int32).cuda()
    a, b = nonzero(M, K), nonzero(G, K, N)

    def reference(o):
        want = torch.zeros(M, N, dtype=torch.float64, device="cuda")
        begin = 0
        for g, end in enumerate(o.tolist()):
            if end > begin:
                want[begin:end] = a[begin:end].double() @ b[g].double()
            begin = max(begin, end)
        return want

    want, want2 = reference(offs), reference(offs2)
    scale = want.abs().max().item()
    flop = 2.0 * M * N * K
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "torch": torch.__version__,
           "case": {"G": G, "M": M, "N": N, "K": K, "dtype": "bf16", "C": "bf16",
                    "empty_groups": int((sizes == 0).sum()), "min_rows": int(sizes.min()),
                    "max_rows": int(sizes.max())},
           "bindings": []}

    def err_of(c, w):
        return ((c.double() - w).abs().max() / scale).item()

    # Peers.
    try:
        ref = torch._grouped_mm(a, b, offs=offs, out_dtype=torch.bfloat16)
        doc["grouped_mm_max_rel_err"] = err_of(ref, want)
        doc["grouped_mm_ms"] = timed(lambda: torch._grouped_mm(a, b, offs=offs, out_dtype=torch.bfloat16),
                                     reps=30, warmup=5)
    except Exception as e:
        doc["grouped_mm_error"] = f"{type(e).__name__}: {e}"[:400]
    bounds = [0] + offs.tolist()
    out_loop = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)

    def loop():
        for g in range(G):
            if bounds[g + 1] > bounds[g]:
                torch.matmul(a[bounds[g]:bounds[g + 1]], b[g], out=out_loop[bounds[g]:bounds[g + 1]])
    loop()
    doc["matmul_loop_max_rel_err"] = err_of(out_loop, want)
    doc["matmul_loop_ms"] = timed(loop, reps=30, warmup=5)
    peer = doc.get("grouped_mm_ms", doc["matmul_loop_ms"])
    best = None
    # Every module in the directory (hand-edited probes, lab/experiments) or the generated bindings.
    modules = ([(path.stem, path) for path in sorted(pathlib.Path(outdir).glob("*.py"))] if every else
               [("defaults" if b is None else dict(zip(NAMES, b)), pathlib.Path(outdir) / (name_of(b) + ".py"))
                for b in BINDINGS])
    for label, path in modules:
        entry = {"binding": label}
        try:
            module = load(path)
            call = module.grouped_gemm_bf16
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            call(a, b, offs, c)
            torch.cuda.synchronize()
            entry["max_rel_err"] = err_of(c, want)
            c2 = torch.full((M, N), 7.0, device="cuda", dtype=torch.bfloat16)
            call(a, b, offs2, c2)
            torch.cuda.synchronize()
            entry["tail_max_rel_err"] = err_of(c2, want2)
            entry["correct"] = entry["max_rel_err"] < 1e-2 and entry["tail_max_rel_err"] < 1e-2  # bf16 C
            if entry["correct"]:
                entry["ms"] = timed(lambda: call(a, b, offs, c), reps=30, warmup=5)
                entry["TFLOPs"] = flop / entry["ms"] / 1e9
                entry["vs_grouped_mm"] = doc["grouped_mm_ms"] / entry["ms"] if "grouped_mm_ms" in doc else None
                entry["vs_matmul_loop"] = doc["matmul_loop_ms"] / entry["ms"]
                if best is None or entry["ms"] < best["ms"]:
                    best = entry
        except Exception as e:  # a binding that fails to compile or launch is a result, not a crash
            entry["error"] = f"{type(e).__name__}: {e}"[:400]
        doc["bindings"].append(entry)
        print(json.dumps(entry), flush=True)
    if best:
        doc["best"] = best
        doc["best_vs_peer"] = peer / best["ms"]
        doc["defaults_vs_peer"] = (peer / doc["bindings"][0]["ms"]) if "ms" in doc["bindings"][0] else None
    print(json.dumps({k: v for k, v in doc.items() if k != "bindings"}, indent=1))
    write_results(doc, results, "grouped-gemm")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["gen", "time"])
    p.add_argument("dir")
    p.add_argument("--out", default=str(ROOT / "lab" / "results"))
    p.add_argument("--every", action="store_true", help="time every module in DIR (hand-edited probes)")
    args = p.parse_args()
    if args.what == "gen":
        gen(args.dir)
    else:
        time_all(args.dir, args.out, args.every)


if __name__ == "__main__":
    main()
