"""Times the PTX provider's row kernels against the Triton provider and torch in one process (issue 15).

Two phases, so the GPU run needs no compiler (neither PTX nor Triton source is generated there):

    # here (CPU, with build/bin/tessel): one PTX wrapper module and one Triton module per (kernel, binding)
    PYTHONPATH=python:examples:bench python3 bench/ptx_rows.py gen --out bench/ptx_carry
    # on the H200 (torch, triton; TESSEL_CUDA_LIB names libtessel_cuda.so)
    PYTHONPATH=python:examples:bench python3 bench/ptx_rows.py check --carry bench/ptx_carry --json OUT.json

`check` runs each row kernel (f32 at 16384x8192: softmax, layernorm, rmsnorm, row sum, argmax, cumsum;
with --bf16 also the bf16 kernels at 4096x1024 and 16384x8192) through every carried PTX binding (the
generated wrapper: tessel's CUDA runtime through tessel._ptx) and every carried Triton binding (the Triton
provider's generated module, launched directly), and through torch, each checked against torch on random
nonzero inputs before it is timed (triton.testing.do_bench: median of CUDA-event timings, L2 flushed
between calls); the best of each provider is then timed again on the device alone (the torch profiler's
kernel time). Prints a line per case, writes JSON.
"""
import argparse
import datetime
import importlib.util
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

# PTX bindings timed per case (BLOCK is the row: one pass): THREADS sweeps the CTA size (128 threads hold
# 64 f32 of a row per thread and spill).
PTX_BINDINGS = [{"THREADS": 256}, {"THREADS": 512}, {"THREADS": 1024}]
# Triton bindings per case (BLOCK is the row): the warp counts, and for f32 softmax/layernorm/rmsnorm the
# bindings of cutile_check (tuned on the H200 at 16384x8192).
TRITON_BINDINGS = [{"WARPS": 4}, {"WARPS": 8}, {"WARPS": 16}]
TRITON_TUNED = {"softmax": {"BLOCK": 8192, "STAGES": 4, "WARPS": 8},
                "layernorm": {"BLOCK": 8192, "STAGES": 2, "WARPS": 16},
                "rmsnorm": {"BLOCK": 8192, "STAGES": 4, "WARPS": 8}}


def cases(bf16=False):
    """(id, kernel name, M, N, dtype name, extra scalars)."""
    out = []
    for name in ["softmax", "layernorm", "rmsnorm", "rowsum", "argmax", "cumsum"]:
        out.append((f"{name}_16384x8192", name, 16384, 8192, "float32", {"eps": 1e-5} if "norm" in name else {}))
    if bf16:
        for M, N in [(4096, 1024), (16384, 8192)]:
            for name in ["softmax_bf16", "layernorm_bf16", "rmsnorm_bf16"]:
                out.append((f"{name}_{M}x{N}", name, M, N, "bfloat16", {"eps": 1e-5} if "norm" in name else {}))
    return out


def kernel(name):
    import row_kernels
    if hasattr(row_kernels, name):
        return getattr(row_kernels, name)
    return getattr(importlib.import_module(name), name)


def _fname(provider, name, params):
    return f"{provider}-{name}-" + "-".join(f"{p}{v}" for p, v in sorted(params.items())) + ".py"


def gen(out, bf16=False):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for cid, name, M, N, dtype, scalars in cases(bf16):
        k = kernel(name)
        triton = [dict(b, BLOCK=N) for b in TRITON_BINDINGS]
        if dtype == "float32" and name in TRITON_TUNED:
            triton.append(TRITON_TUNED[name])
        for provider, bindings in [("ptx", [dict(b, BLOCK=N) for b in PTX_BINDINGS]), ("triton", triton)]:
            for params in bindings:
                fname = _fname(provider, name, params)
                path = out / fname
                if not path.exists():
                    path.write_text(k.source(provider, params=params))
                manifest.append({"case": cid, "provider": provider, "params": params, "file": fname})
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


# Odd shapes each carried PTX binding is checked at before timing: a misaligned odd row (every access
# element by element), a row past BLOCK (the multi-pass variant), a row of one element.
ODD_SHAPES = [(37, 8191), (5, 12289), (3, 1), (2, 8192)]


def inputs(base, M, N, dt):
    """Random nonzero inputs, the kernel's arguments (outputs last) and the torch reference."""
    import torch
    x = (torch.rand(M, N, device="cuda") * 0.75 + 0.25)
    x = torch.where(torch.rand(M, N, device="cuda") < 0.5, -x, x).to(dt)
    w = (torch.rand(N, device="cuda") + 0.5).to(dt)
    b = (torch.rand(N, device="cuda") - 0.5).to(dt)
    eps = 1e-5
    if base == "softmax":
        return [x, torch.empty_like(x)], lambda: torch.softmax(x.float(), 1).to(dt)
    if base == "layernorm":
        return [x, w, b, torch.empty_like(x)], \
            lambda: torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), eps).to(dt)
    if base == "rmsnorm":
        return [x, w, torch.empty_like(x)], lambda: torch.nn.functional.rms_norm(x.float(), (N,), w.float(), eps).to(dt)
    if base == "rowsum":
        return [x, torch.empty(M, device="cuda")], lambda: x.sum(1, dtype=torch.float32)
    if base == "cumsum":
        return [x, torch.empty_like(x)], lambda: torch.cumsum(x, 1)
    return ([x, torch.empty(M, device="cuda", dtype=dt), torch.empty(M, device="cuda", dtype=torch.int64)],
            lambda: torch.argmax(x, 1))


def agrees(base, out, want, dt):
    import torch
    if base == "argmax":
        return bool(torch.equal(out, want))
    tol = 2e-2 if dt == torch.bfloat16 else (1e-2 if base in ("rowsum", "cumsum") else 1e-4)
    return ((out.float() - want.float()).abs() - tol * want.float().abs()).max().item() <= tol


def odd_shapes(carry, manifest, bf16):
    """Each carried PTX binding against torch at ODD_SHAPES; returns one entry per (binding, shape)."""
    import torch
    results = []
    for cid, name, _, _, dtype, scalars in cases(bf16):
        for entry in manifest:
            if entry["case"] != cid or entry["provider"] != "ptx":
                continue
            fn = getattr(_load(carry / entry["file"]), name)
            for M, N in ODD_SHAPES:
                torch.manual_seed(1)
                dt, base = getattr(torch, dtype), name.replace("_bf16", "")
                args, ref = inputs(base, M, N, dt)
                try:
                    fn(*args, **scalars)
                    torch.cuda.synchronize()
                    ok = agrees(base, args[-1], ref(), dt)
                except Exception as e:
                    ok = f"{type(e).__name__}: {str(e)[-200:]}"
                results.append({"case": cid, "params": entry["params"], "shape": [M, N], "correct": ok})
    bad = [r for r in results if r["correct"] is not True]
    print(f"odd shapes: {len(results) - len(bad)} of {len(results)} agree with torch; failed: {bad}", flush=True)
    return results


def check(carry, json_path, bf16=False):
    import torch
    import triton
    from triton.testing import do_bench

    carry = pathlib.Path(carry)
    manifest = json.loads((carry / "manifest.json").read_text())
    results = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "triton": triton.__version__,
               "timing": "triton.testing.do_bench median (warmup 25, rep 100), L2 flushed between calls",
               "cases": []}
    results["odd_shapes"] = odd_shapes(carry, manifest, bf16)
    for cid, name, M, N, dtype, scalars in cases(bf16):
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
        elif base == "cumsum":
            args, ref = [x, torch.empty_like(x)], lambda: torch.cumsum(x, 1)
        else:  # argmax
            args = [x, torch.empty(M, device="cuda", dtype=dt), torch.empty(M, device="cuda", dtype=torch.int64)]
            ref = lambda: torch.argmax(x, 1)
        out = args[-1]
        want = ref()
        nbytes = sum(t.numel() * t.element_size() for t in args)
        tol = 2e-2 if dt == torch.bfloat16 else (1e-2 if base in ("rowsum", "cumsum") else 1e-4)

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
        row["triton"], row["ptx"] = [], []
        for entry in manifest:
            if entry["case"] != cid:
                continue
            try:
                fn = getattr(_load(carry / entry["file"]), name)
                call = lambda fn=fn: fn(*args, **scalars)
                row[entry["provider"]].append(dict(measure(call), params=entry["params"], fn=call))
            except Exception as e:
                row[entry["provider"]].append({"params": entry["params"], "error": f"{type(e).__name__}: {str(e)[-300:]}"})
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
    g.add_argument("--bf16", action="store_true")
    c = sub.add_parser("check")
    c.add_argument("--carry", default=str(ROOT / "bench" / "ptx_carry"))
    c.add_argument("--json")
    c.add_argument("--bf16", action="store_true")
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples"), str(ROOT / "bench")]
    if args.cmd == "gen":
        gen(args.out, args.bf16)
    else:
        check(args.carry, args.json, args.bf16)


if __name__ == "__main__":
    main()
