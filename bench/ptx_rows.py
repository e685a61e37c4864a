"""Times the PTX provider's row kernels against the Triton provider and torch in one process (issue 15).

Two phases, so the GPU run spends no time compiling PTX:

    # here (CPU, with build/bin/tessel): one PTX wrapper module per (kernel, binding)
    PYTHONPATH=python:examples:bench python3 bench/ptx_rows.py gen --out bench/ptx_carry
    # on the H200 (torch, triton; TESSEL_CUDA_LIB names libtessel_cuda.so, TESSEL_BIN a tessel binary)
    PYTHONPATH=python:examples:bench python3 bench/ptx_rows.py check --carry bench/ptx_carry --json OUT.json

`check` runs each row kernel (f32 at 16384x8192; bf16 at 4096x1024 and 16384x8192) through every carried
PTX binding (the generated wrapper: tessel's CUDA runtime through tessel._ptx), through the Triton provider
(the kernel's own call, and for f32 the bindings tuned for cutile_check) and through torch, each checked
against torch on random nonzero inputs before it is timed (triton.testing.do_bench: median of CUDA-event
timings, L2 flushed between calls). Prints a line per case, writes JSON.
"""
import argparse
import datetime
import importlib.util
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

# PTX bindings timed per case (BLOCK is the row: one pass). THREADS sweeps the CTA size; VECTOR=1 is the
# cyclic layout with 4-byte accesses (the provider before vector accesses), for the before/after.
PTX_BINDINGS = [{"THREADS": 128}, {"THREADS": 256}, {"THREADS": 512}, {"THREADS": 1024}, {"THREADS": 512, "VECTOR": 1}]
# Triton bindings of cutile_check (tuned on the H200 for these f32 kernels at 16384x8192).
TRITON_TUNED = {"softmax": {"BLOCK": 8192, "STAGES": 4, "WARPS": 8},
                "layernorm": {"BLOCK": 8192, "STAGES": 2, "WARPS": 16},
                "rmsnorm": {"BLOCK": 8192, "STAGES": 4, "WARPS": 8}}


def cases():
    """(id, kernel name, M, N, dtype name, extra scalars)."""
    out = []
    for name in ["softmax", "layernorm", "rmsnorm", "rowsum", "argmax"]:
        out.append((f"{name}_16384x8192", name, 16384, 8192, "float32", {"eps": 1e-5} if "norm" in name else {}))
    for M, N in [(4096, 1024), (16384, 8192)]:
        for name in ["softmax_bf16", "layernorm_bf16", "rmsnorm_bf16"]:
            out.append((f"{name}_{M}x{N}", name, M, N, "bfloat16", {"eps": 1e-5} if "norm" in name else {}))
    return out


def kernel(name):
    import row_kernels
    if hasattr(row_kernels, name):
        return getattr(row_kernels, name)
    return getattr(importlib.import_module(name), name)


def gen(out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for cid, name, M, N, dtype, scalars in cases():
        k = kernel(name)
        for binding in PTX_BINDINGS:
            params = dict(binding, BLOCK=N)
            fname = f"{name}-" + "-".join(f"{p}{v}" for p, v in sorted(params.items())) + ".py"
            path = out / fname
            if not path.exists():
                path.write_text(k.source("ptx", params=params))
            manifest.append({"case": cid, "params": params, "file": fname})
        print(f"generated {cid}", flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))


def kernel_us(fn, reps=20):
    """Device time of the kernels one call launches, in microseconds (run_bench.kernel_ms: the torch
    profiler, mean over `reps` calls)."""
    from run_bench import kernel_ms
    return kernel_ms(fn, reps) * 1e3


def loop_us(fn, reps=50):
    """Mean time of `reps` back-to-back calls between two CUDA events (the device time when the host
    enqueues faster than the device runs)."""
    import torch
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / reps


def _load(path):
    spec = importlib.util.spec_from_file_location(f"_ptx_rows_{path.stem.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(carry, json_path):
    import torch
    import triton
    from triton.testing import do_bench

    carry = pathlib.Path(carry)
    manifest = json.loads((carry / "manifest.json").read_text())
    results = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "triton": triton.__version__,
               "timing": "triton.testing.do_bench median (warmup 25, rep 100), L2 flushed between calls",
               "cases": []}
    for cid, name, M, N, dtype, scalars in cases():
        torch.manual_seed(0)
        dt = getattr(torch, dtype)
        x = (torch.rand(M, N, device="cuda") * 0.75 + 0.25)
        x = torch.where(torch.rand(M, N, device="cuda") < 0.5, -x, x).to(dt)
        w = (torch.rand(N, device="cuda") + 0.5).to(dt)
        b = (torch.rand(N, device="cuda") - 0.5).to(dt)
        base = name.replace("_bf16", "")
        eps = scalars.get("eps", 1e-5)
        if base == "softmax":
            args, ref = [x, torch.empty_like(x)], lambda: torch.softmax(x.float(), 1).to(dt)
        elif base == "layernorm":
            args = [x, w, b, torch.empty_like(x)]
            ref = lambda: torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), eps).to(dt)
        elif base == "rmsnorm":
            args = [x, w, torch.empty_like(x)]
            ref = lambda: torch.nn.functional.rms_norm(x.float(), (N,), w.float(), eps).to(dt)
        elif base == "rowsum":
            args, ref = [x, torch.empty(M, device="cuda")], lambda: x.sum(1, dtype=torch.float32)
        else:  # argmax
            args = [x, torch.empty(M, device="cuda", dtype=dt), torch.empty(M, device="cuda", dtype=torch.int64)]
            ref = lambda: torch.argmax(x, 1)
        out = args[-1]
        want = ref()
        nbytes = sum(t.numel() * t.element_size() for t in args)
        tol = 2e-2 if dt == torch.bfloat16 else (1e-2 if base == "rowsum" else 1e-4)

        def correct():
            if base == "argmax":
                return bool(torch.equal(out, want))
            err = ((out.float() - want.float()).abs() - tol * want.float().abs()).max().item()
            return err <= tol

        def measure(fn):
            out.zero_()
            fn()
            torch.cuda.synchronize()
            if not correct():
                return {"correct": False, "max_abs_err": (out.float() - want.float()).abs().max().item()}
            ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
            return {"correct": True, "ms": ms, "TBps": nbytes / ms / 1e9}

        row = {"case": cid, "shape": [M, N], "dtype": dtype}
        row["torch"] = {"ms": do_bench(ref, warmup=25, rep=100, return_mode="median")}
        k = kernel(name)
        triton_runs = [("call", lambda: k(*args, **scalars))]
        if name in TRITON_TUNED:
            p = TRITON_TUNED[name]
            triton_runs.append((p, lambda p=p: k.launch(*args, target="triton", params=p, **scalars)))
        row["triton"] = []
        for params, fn in triton_runs:
            try:
                row["triton"].append(dict(measure(fn), params=params, fn=fn))
            except Exception as e:
                row["triton"].append({"params": params, "error": f"{type(e).__name__}: {str(e)[-300:]}"})
        row["ptx"] = []
        for entry in manifest:
            if entry["case"] != cid:
                continue
            try:
                fn = getattr(_load(carry / entry["file"]), name)
                call = lambda fn=fn: fn(*args, **scalars)
                row["ptx"].append(dict(measure(call), params=entry["params"], fn=call))
            except Exception as e:
                row["ptx"].append({"params": entry["params"], "error": f"{type(e).__name__}: {str(e)[-300:]}"})
        best = lambda runs: min((r for r in runs if r.get("correct")), key=lambda r: r["ms"], default=None)
        bt, bp = best(row["triton"]), best(row["ptx"])
        vector = [r for r in row["ptx"] if r.get("correct") and r["params"].get("VECTOR") != 1]
        bv = min(vector, key=lambda r: r["ms"], default=None)
        row["best_triton"], row["best_ptx"] = bt, bv
        if bt and bv:
            row["ptx_vs_triton"] = bt["ms"] / bv["ms"]
        if bv:
            row["ptx_vs_torch"] = row["torch"]["ms"] / bv["ms"]
        cyclic = [r for r in row["ptx"] if r.get("correct") and r["params"].get("VECTOR") == 1]
        if cyclic and bv:
            row["vector_vs_cyclic"] = cyclic[0]["ms"] / bv["ms"]
        # Device time without the host path, for the best of each: the torch profiler's kernel time
        # (CUPTI sees driver-API launches too) and back-to-back calls between two events.
        timed = [(row["torch"], ref)] + [(r, r["fn"]) for r in [bt, bv] + cyclic[:1] if r]
        for r, fn in timed:
            try:
                r["kernel_us"], r["loop_us"] = kernel_us(fn), loop_us(fn)
            except Exception as e:
                r["device_time_error"] = f"{type(e).__name__}: {str(e)[-200:]}"
        for r in row["ptx"] + row["triton"]:
            r.pop("fn", None)
        if bt and bv and bt.get("kernel_us") and bv.get("kernel_us"):
            row["ptx_vs_triton_kernel"] = bt["kernel_us"] / bv["kernel_us"]
        results["cases"].append(row)
        nan = float("nan")
        print(f"{cid}: kernel us PTX {(bv or {}).get('kernel_us', nan):.1f} Triton {(bt or {}).get('kernel_us', nan):.1f} "
              f"cyclic {(cyclic[0] if cyclic else {}).get('kernel_us', nan):.1f} torch {row['torch'].get('kernel_us', nan):.1f} "
              f"(PTX/Triton {row.get('ptx_vs_triton_kernel', nan):.3f}x) | do_bench "
              f"PTX {bv['ms'] * 1e3 if bv else float('nan'):.1f} us at {bv and bv['params']} "
              f"| Triton {bt['ms'] * 1e3 if bt else float('nan'):.1f} us | torch {row['torch']['ms'] * 1e3:.1f} us "
              f"| PTX/Triton {row.get('ptx_vs_triton', float('nan')):.3f}x "
              f"| vector/cyclic {row.get('vector_vs_cyclic', float('nan')):.2f}x "
              f"| failed: {[r['params'] for r in row['ptx'] + row['triton'] if not r.get('correct')]}", flush=True)
        if json_path:
            pathlib.Path(json_path).write_text(json.dumps(results, indent=1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--out", default=str(ROOT / "bench" / "ptx_carry"))
    c = sub.add_parser("check")
    c.add_argument("--carry", default=str(ROOT / "bench" / "ptx_carry"))
    c.add_argument("--json")
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples"), str(ROOT / "bench")]
    if args.cmd == "gen":
        gen(args.out)
    else:
        check(args.carry, args.json)


if __name__ == "__main__":
    main()
