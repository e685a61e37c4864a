"""Checks and times the cuTile provider on a CUDA machine (issue 17).

Two phases, so the GPU machine needs neither MLIR nor a tessel build:

    # here (CPU, with build/bin/tessel): cuTile and Triton sources, interpreter inputs and outputs
    python3 bench/cutile_check.py gen --out bench/cutile_carry
    # on the H200 (torch, triton, cuda.tile + toolchain from cutile-toolchain.sh unpack)
    python3 bench/cutile_check.py check --carry bench/cutile_carry [--json lab/results/DATE-h200-cutile-check.json]

On the GPU machine (whose CUDA 13.0 is too old for tileiras 13.4) first rebuild the toolchain from its
carry set, sent in a run of its own: `bash cutile-toolchain.sh unpack CARRY ROOT` (the maintainers'
script, outside the repository; docs/cutile.md) and export what it prints. Write the gen output inside the working tree (e.g. `--out bench/cutile_carry`,
about 5 MB) so it travels with it. `all` does both in one process when a tessel binary and a GPU are on
the same machine (the static binary works: `--tessel build-static/bin/tessel`). `check`:

1. runs every accepted suite kernel through its generated cuTile wrapper (ct.launch) on exactly the
   inputs the KIR interpreter saw at odd shapes and compares the outputs with the interpreter's;
2. times bf16 GEMM 4096^3 (and 8192^3 with --large) through cuTile against cuBLAS (torch.matmul) and
   the Triton provider, and the f32 row kernels softmax, layernorm and rmsnorm at 16384x8192 against
   the Triton provider and torch, each at a few declared parameter bindings (the best is reported);
3. prints one line per case and writes the results as JSON.

Exits non-zero when a kernel fails or mismatches.
"""
import argparse
import datetime
import importlib.util
import inspect
import json
import pathlib
import subprocess
import sys
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1]
EX = ROOT / "examples"

# (id, kernel spec, odd shapes, scalars, cuTile --param bindings): correctness cases. Parameters keep
# tiles small where a default would be wasteful at these shapes; every extent is a power of two.
CHECKS = [
    ("vector_add", "kir/vector_add.mlir", {"N": 100003}, {"scale": 0.5}, []),
    ("softmax", "kir/softmax.mlir", {"M": 37, "N": 1029}, {}, []),
    ("softmax_staged", "kir/softmax.mlir", {"M": 37, "N": 1029}, {}, ["BLOCK=2048"]),
    ("layernorm", "kir/layernorm.mlir", {"M": 37, "N": 1029}, {"eps": 1e-5}, []),
    ("rmsnorm", "kir/rmsnorm.mlir", {"M": 37, "N": 1029}, {"eps": 1e-5}, []),
    ("argmax", "kir/argmax.mlir", {"M": 37, "N": 1029}, {}, []),
    ("cross_entropy", "kir/cross_entropy.mlir", {"M": 37, "C": 1029}, {}, []),
    ("gemv", "kir/gemv.mlir", {"M": 37, "K": 1029}, {}, []),
    ("histogram", "kir/histogram.mlir", {"N": 10007, "B": 37}, {}, []),
    ("cumsum", "kir/cumsum.mlir:cumsum", {"M": 5, "N": 1029}, {}, []),
    ("cumsum_exclusive_reverse", "kir/cumsum.mlir:cumsum_exclusive_reverse", {"M": 5, "N": 1029}, {}, []),
    ("cummax", "kir/cummax.mlir", {"M": 5, "N": 1029}, {}, []),
    ("transpose", "kir/transpose.mlir", {"M": 37, "N": 129}, {}, []),
    ("gemm", "kir/gemm.mlir", {"M": 37, "N": 129, "K": 71}, {}, []),
    ("batched_gemm", "kir/batched_gemm.mlir", {"B": 3, "M": 37, "N": 33, "K": 29}, {}, []),
    ("embedding_gather", "kir/embedding.mlir:embedding_gather", {"T": 37, "V": 11, "D": 65}, {}, []),
    ("embedding_scatter_add", "kir/embedding.mlir:embedding_scatter_add", {"T": 37, "V": 11, "D": 65}, {}, []),
    ("matmul_bf16", "matmul.py:matmul", {"M": 129, "N": 257, "K": 100}, {}, []),
    ("online_softmax", "online_softmax.py:online_softmax", {"M": 37, "N": 1029}, {}, []),
    ("scatter_add", "scatter_add.py:scatter_add", {"T": 37, "V": 11, "D": 65}, {}, []),
    ("attention", "kir/attention.mlir", {"B": 1, "H": 2, "S": 37, "T": 70, "D": 64}, {"scale": 0.125},
     ["BLOCK_S=32", "BLOCK_T=32", "BLOCK_D=64", "BLOCK=64"]),  # tileiras takes > 8 min at BLOCK=512
    ("linear_attention", "kir/linear_attention.mlir", {"B": 1, "H": 2, "T": 5, "D": 3, "E": 2}, {}, []),
]

# (id, kernel spec, shapes, scalars, torch peer, [cuTile bindings], Triton binding): timed cases. The
# Triton bindings are the tuned ones of the README's table (lab/results/2026-11-30-*).
GEMM_CUTILE = [[f"TILE_0={a}", f"TILE_1={b}", f"TILE_K={k}", f"PERSIST={p}", "GROUP_0=8"]
               for a, b, k in [(128, 128, 64), (128, 256, 64), (256, 128, 64)] for p in (1, 2)] + [
    ["TILE_0=128", "TILE_1=128", "TILE_K=64", "PERSIST=2", "GROUP_0=8", "OCCUPANCY=2"],
    ["TILE_0=128", "TILE_1=256", "TILE_K=64", "PERSIST=1", "GROUP_0=8", "OCCUPANCY=1"]]
ROW_CUTILE = [["BLOCK=8192"], ["BLOCK=4096"], ["BLOCK=2048"], ["BLOCK=8192", "OCCUPANCY=2"],
              ["BLOCK=4096", "OCCUPANCY=4"]]
TIMED = [
    ("matmul_4096", "matmul.py:matmul", {"M": 4096, "N": 4096, "K": 4096}, {}, "matmul", GEMM_CUTILE,
     ["FLATTEN=1", "GROUP_0=8", "PERSIST=1", "STAGES=3", "TILE_0=128", "TILE_1=256", "TILE_K=64", "TMA=1",
      "WARPS=8"]),
    ("softmax_16384x8192", "softmax.py:softmax", {"M": 16384, "N": 8192}, {}, "softmax", ROW_CUTILE,
     ["BLOCK=8192", "STAGES=4", "WARPS=8"]),
    ("layernorm_16384x8192", "layernorm.py:layernorm", {"M": 16384, "N": 8192}, {"eps": 1e-5}, "layernorm",
     ROW_CUTILE, ["BLOCK=8192", "STAGES=2", "WARPS=16"]),
    ("rmsnorm_16384x8192", "rmsnorm.py:rmsnorm", {"M": 16384, "N": 8192}, {"eps": 1e-5}, "rmsnorm", ROW_CUTILE,
     ["BLOCK=8192", "STAGES=4", "WARPS=8"]),
]
LARGE = [("matmul_8192", "matmul.py:matmul", {"M": 8192, "N": 8192, "K": 8192}, {}, "matmul", GEMM_CUTILE,
          ["FLATTEN=1", "GROUP_0=8", "PERSIST=1", "STAGES=3", "TILE_0=128", "TILE_1=256", "TILE_K=64", "TMA=1",
           "WARPS=8"])]


def _spec_path(spec):
    path, _, kernel = spec.partition(":")
    name = kernel or pathlib.Path(path).stem
    return EX / path, name


def _tessel_compile(tessel, spec, target, params, out):
    path, name = _spec_path(spec)
    cmd = [str(tessel), "compile", f"{path}:{name}" if path.suffix == ".py" or ":" in spec else str(path),
           f"--target={target}", "--emit=source", "-o", str(out)] + [f"--param={p}" for p in params]
    env = dict(__import__("os").environ)
    env["PYTHONPATH"] = f"{ROOT / 'python'}:{EX}:{env.get('PYTHONPATH', '')}"
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return r.returncode == 0, r.stderr.strip()


def gen(tessel, out, large=False):
    """Everything `check` needs, from the compiler: sources and interpreter reference data."""
    import os
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"checks": [], "timed": []}
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{ROOT / 'python'}:{EX}:{env.get('PYTHONPATH', '')}"
    for cid, spec, shapes, scalars, params in CHECKS:
        path, name = _spec_path(spec)
        entry = {"id": cid, "spec": spec, "name": name, "shapes": shapes, "scalars": scalars, "params": params}
        ok, err = _tessel_compile(tessel, spec, "cutile", params, out / f"{cid}_cutile.py")
        if not ok:
            entry["rejected"] = err
            print(f"rejected {cid}: {err.splitlines()[0] if err else ''}")
            manifest["checks"].append(entry)
            continue
        ref = out / f"{cid}_ref"
        cmd = [str(tessel), "run", f"{path}:{name}", "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()),
               "--seed", "7", "--out", str(ref)] + [f"--scalar={k}={v}" for k, v in scalars.items()]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode:
            entry["interp_error"] = r.stderr.strip()
            print(f"interpreter failed on {cid}: {r.stderr.strip()[:300]}")
        manifest["checks"].append(entry)
        print(f"generated {cid}")
    for cid, spec, shapes, scalars, peer, cutile_params, triton_params in TIMED + (LARGE if large else []):
        _, name = _spec_path(spec)
        entry = {"id": cid, "spec": spec, "name": name, "shapes": shapes, "scalars": scalars, "peer": peer,
                 "cutile": [], "triton": None}
        for i, params in enumerate(cutile_params):
            ok, err = _tessel_compile(tessel, spec, "cutile", params, out / f"{cid}_cutile{i}.py")
            entry["cutile"].append({"params": params, "file": f"{cid}_cutile{i}.py" if ok else None, "error": err})
        ok, err = _tessel_compile(tessel, spec, "triton", triton_params, out / f"{cid}_triton.py")
        entry["triton"] = {"params": triton_params, "file": f"{cid}_triton.py" if ok else None, "error": err}
        manifest["timed"].append(entry)
        print(f"generated {cid} ({sum(c['file'] is not None for c in entry['cutile'])} cuTile bindings)")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return out


def _load(path):
    spec = importlib.util.spec_from_file_location(f"_cutile_check_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tensors(torch, np, module, name, ref, shapes):
    """The wrapper's arguments: inputs exactly as the interpreter saw them, outputs empty."""
    import numpy
    fn = getattr(module, name)
    abi = getattr(module, f"{name}_ABI", None)
    params = [p for p in inspect.signature(fn).parameters.values() if p.kind == p.POSITIONAL_OR_KEYWORD]
    dtypes = [a[1] for a in abi if a[0] == "view"] if abi else [None] * len(params)
    args = []
    for p, dt in zip(params, dtypes):
        tdt = getattr(torch, dt if dt != "bool_" else "bool") if dt else None
        if (ref / f"{p.name}.in.npy").exists():
            t = torch.from_numpy(numpy.load(ref / f"{p.name}.in.npy"))
        else:
            t = torch.full(numpy.load(ref / f"{p.name}.npy").shape, float("nan") if tdt and tdt.is_floating_point
                           else 0)
        args.append(t.to(tdt).cuda() if tdt else t.cuda())
    return params, args


def _compare(np, got, want, rtol, atol):
    if want.dtype.kind == "f":
        ok = np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        finite = np.isfinite(want)
        diff = float(np.abs(got[finite].astype(np.float64) - want[finite].astype(np.float64)).max()) if finite.any() else 0.0
        return ok, diff
    return bool(np.array_equal(got, want)), 0.0


def _hand_gemm(ct):
    """The hand-written cuTile GEMM of the maintainers' cuTile smoke test's kind (one program per output
    tile, no persistence): what cuTile does with the plainest program, beside what tessel generates."""
    @ct.kernel
    def mm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
        bx, by = ct.bid(0), ct.bid(1)
        acc = ct.full((tm, tn), 0, dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bx, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO),
                         ct.load(B, index=(k, by), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO), acc)
        ct.store(C, index=(bx, by), tile=ct.astype(acc, C.dtype))
    return mm


def check(carry, json_path=None, rtol=2e-3, atol=2e-3):
    import numpy as np
    import torch
    from triton.testing import do_bench

    carry = pathlib.Path(carry)
    manifest = json.loads((carry / "manifest.json").read_text())
    results = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "checks": [], "timed": []}
    try:
        import cuda.tile as ct
        results["cuda_tile"] = ct.__version__
    except ImportError as e:
        print(f"cuda.tile does not import ({e}); unpack the toolchain with cutile-toolchain.sh unpack")
        return 1
    failures = 0
    for entry in manifest["checks"]:
        cid, name, row = entry["id"], entry["name"], {"id": entry["id"], "shapes": entry["shapes"]}
        if "rejected" in entry:
            row.update(status="rejected", reason=entry["rejected"].splitlines()[0] if entry["rejected"] else "")
            print(f"rejected {cid}: {row['reason']}")
        elif "interp_error" in entry:
            row.update(status="no reference", reason=entry["interp_error"][:300])
            print(f"skip {cid}: no interpreter reference")
        else:
            try:
                module = _load(carry / f"{cid}_cutile.py")
                ref = carry / f"{cid}_ref"
                params, args = _tensors(torch, np, module, name, ref, entry["shapes"])
                getattr(module, name)(*args, **entry["scalars"])
                torch.cuda.synchronize()
                worst, bad = 0.0, []
                for p, t in zip(params, args):
                    want_path = ref / f"{p.name}.npy"
                    if not want_path.exists():
                        continue
                    got = (t.float() if t.dtype == torch.bfloat16 else t).cpu().numpy()
                    same, diff = _compare(np, got, np.load(want_path), rtol, atol)
                    worst = max(worst, diff)
                    if not same:
                        bad.append(p.name)
                row.update(status="ok" if not bad else "mismatch", max_abs_diff=worst, mismatched=bad)
                failures += bool(bad)
                print(f"{'ok  ' if not bad else 'FAIL'} {cid} {entry['shapes']} (max abs diff {worst:.3g})"
                      + (f" mismatch in {bad}" if bad else ""))
            except Exception as e:  # a JIT (tileiras) failure or a launch error: recorded, not fatal
                failures += 1
                row.update(status="error", error=f"{type(e).__name__}: {str(e)[-600:]}")
                print(f"FAIL {cid}: {type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}")
        results["checks"].append(row)

    for entry in manifest["timed"]:
        cid, name, shapes, scalars = entry["id"], entry["name"], entry["shapes"], entry["scalars"]
        row = {"id": cid, "shapes": shapes, "cutile": []}
        torch.manual_seed(0)
        if entry["peer"] == "matmul":
            a = torch.randn(shapes["M"], shapes["K"], device="cuda", dtype=torch.bfloat16)
            b = torch.randn(shapes["K"], shapes["N"], device="cuda", dtype=torch.bfloat16)
            args, want, peer = [a, b], (a @ b).float(), lambda: a @ b
            out = torch.empty(shapes["M"], shapes["N"], device="cuda", dtype=torch.bfloat16)
            flops = 2 * shapes["M"] * shapes["N"] * shapes["K"]
            tol = 2e-2
        else:
            x = torch.randn(shapes["M"], shapes["N"], device="cuda")
            w, bb = torch.randn(shapes["N"], device="cuda"), torch.randn(shapes["N"], device="cuda")
            eps = scalars.get("eps", 1e-5)
            if entry["peer"] == "softmax":
                args, peer = [x], lambda: torch.softmax(x, 1)
            elif entry["peer"] == "layernorm":
                args, peer = [x, w, bb], lambda: torch.nn.functional.layer_norm(x, (shapes["N"],), w, bb, eps)
            else:
                args, peer = [x, w], lambda: torch.nn.functional.rms_norm(x, (shapes["N"],), w, eps)
            want = peer().float()
            out = torch.empty_like(x)
            flops, tol = None, 1e-4
        nbytes = sum(t.numel() * t.element_size() for t in args) + out.numel() * out.element_size()

        def measure(fn):
            fn()
            torch.cuda.synchronize()
            err = ((out.float() - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()
            ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
            return ms, err

        def summary(ms):
            return ({"ms": ms, "TFLOPs": flops / ms / 1e9} if flops else {"ms": ms, "TBps": nbytes / ms / 1e9})

        row["peer"] = summary(do_bench(peer, warmup=25, rep=200, return_mode="median"))
        if entry["peer"] == "matmul":
            mm, hand = _hand_gemm(ct), []
            for tm, tn, tk in [(128, 128, 64), (128, 256, 64), (256, 128, 64)]:
                grid = ((shapes["M"] + tm - 1) // tm, (shapes["N"] + tn - 1) // tn, 1)
                try:
                    ms, err = measure(lambda: ct.launch(torch.cuda.current_stream(), grid, mm,
                                                        (args[0], args[1], out, tm, tn, tk)))
                    hand.append(dict(summary(ms), tiles=[tm, tn, tk], rel_err=err))
                except Exception as e:
                    hand.append({"tiles": [tm, tn, tk], "error": f"{type(e).__name__}: {str(e)[-300:]}"})
            row["hand_cutile"] = hand
        for c in entry["cutile"]:
            rec = {"params": c["params"]}
            if c["file"] is None:
                rec["error"] = c["error"][:300]
            else:
                try:
                    fn = getattr(_load(carry / c["file"]), name)
                    ms, err = measure(lambda: fn(*args, out, **scalars))
                    rec.update(summary(ms), rel_err=err, correct=err < tol)
                except Exception as e:
                    rec["error"] = f"{type(e).__name__}: {str(e)[-400:]}"
            row["cutile"].append(rec)
        t = entry["triton"]
        if t["file"]:
            try:
                fn = getattr(_load(carry / t["file"]), name)
                ms, err = measure(lambda: fn(*args, out, **scalars))
                row["triton"] = dict(summary(ms), params=t["params"], rel_err=err, correct=err < tol)
            except Exception as e:
                row["triton"] = {"params": t["params"], "error": f"{type(e).__name__}: {str(e)[-400:]}"}
        good = [c for c in row["cutile"] if c.get("correct")]
        best = min(good, key=lambda c: c["ms"]) if good else None
        row["best_cutile"] = best
        if best:
            if "ms" in row.get("triton", {}):
                row["cutile_vs_triton"] = row["triton"]["ms"] / best["ms"]
            row["cutile_vs_peer"] = row["peer"]["ms"] / best["ms"]
        else:
            failures += 1
        results["timed"].append(row)
        unit = "TFLOP/s" if flops else "TB/s"
        key = "TFLOPs" if flops else "TBps"
        print(f"{cid}: cuTile best {best[key]:.1f} {unit} at {best['params']}" if best else f"{cid}: no correct cuTile run",
              f"| Triton {row.get('triton', {}).get(key, float('nan')):.1f}",
              f"| {'cuBLAS' if flops else 'torch'} {row['peer'][key]:.1f}",
              f"| hand cuTile {max([h.get(key, 0.0) for h in row.get('hand_cutile', [])] or [float('nan')]):.1f}",
              f"| cuTile/Triton {row.get('cutile_vs_triton', float('nan')):.3f}x",
              f"cuTile/{'cuBLAS' if flops else 'torch'} {row.get('cutile_vs_peer', float('nan')):.3f}x")
    if json_path:
        pathlib.Path(json_path).write_text(json.dumps(results, indent=1))
        print(f"wrote {json_path}")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("phase", choices=["gen", "check", "all"])
    parser.add_argument("--tessel", default=ROOT / "build" / "bin" / "tessel")
    parser.add_argument("--out", default="/tmp/tessel_cutile_carry", help="gen: where the carry set goes")
    parser.add_argument("--carry", help="check: the folder gen wrote (default --out)")
    parser.add_argument("--json", help="check: write the results here")
    parser.add_argument("--large", action="store_true", help="gen: also time bf16 GEMM 8192^3")
    args = parser.parse_args()
    if args.phase in ("gen", "all"):
        gen(args.tessel, args.out, args.large)
    if args.phase in ("check", "all"):
        try:
            return check(args.carry or args.out, args.json)
        except Exception:
            traceback.print_exc()
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
