"""GPU side: decode-shaped attention (few queries, long keys) with the key fold split across programs
(pgpu-split-folds, FOLD_SPLIT) against SDPA in one process, each variant checked against SDPA's math
backend on random non-zero inputs before timing (median of CUDA events, bench/run_bench.timed).

The kernel is bench/attention_kernels.py's attention with CAUSAL=False, at its call defaults (FOLD_SPLIT
from the launch's programs against the multiprocessors) and at a few explicit bindings.

    TESSEL_BIN=... PYTHONPATH=python:bench python3 bench/decode_split.py            (compiles here)
    PYTHONPATH=python:bench python3 bench/decode_split.py --generate DIR             (CPU: sources only)
    PYTHONPATH=python:bench python3 bench/decode_split.py --modules DIR              (GPU: no compiler)

--generate writes each binding's generated Triton module and a manifest, so a machine without the
compiler times exactly those modules."""
import argparse
import datetime
import importlib.util
import json
import math
import os
import pathlib
import sys

CASES = [  # B, H, S, T, D and the explicit (BLOCK_S, BLOCK_T, WARPS, STAGES, FOLD_SPLIT) bindings
    ((1, 32, 1, 32768, 128), [(16, 64, 4, 3, 1), (16, 64, 4, 3, 8), (16, 64, 4, 3, 16), (16, 64, 4, 3, 32),
                              (16, 128, 4, 3, 8), (16, 128, 4, 3, 16)]),
    ((8, 32, 1, 8192, 128), [(16, 64, 4, 3, 1), (16, 64, 4, 3, 2)]),
    ((8, 32, 16, 4096, 128), [(16, 64, 4, 3, 1), (16, 64, 4, 3, 2)]),
]
NAME = "decode_split_attention"


def bindings(kernel, shape):
    """(label, params) of each timed variant: the call's defaults first."""
    import torch
    B, H, S, Tk, D = shape
    q = torch.empty(B, H, S, D, dtype=torch.bfloat16, device="meta")
    kv = torch.empty(B, H, Tk, D, dtype=torch.bfloat16, device="meta")
    tensors, _, constexprs = kernel._bind((q, kv, kv, q), {"scale": 1.0, "CAUSAL": False})
    out = [("defaults", kernel._call_defaults(constexprs, tensors))]
    for bs, bt, w, st, fs in dict(CASES)[shape]:
        out.append((f"{bs}_{bt}_{w}_{st}_split{fs}",
                    dict(BLOCK_S=bs, BLOCK_T=bt, WARPS=w, STAGES=st, BLOCK_D=D, FOLD_SPLIT=fs)))
    return out


def generate(directory):
    import attention_kernels as AK
    import tessel.language as T
    kernel = AK.attention(T.bf16, name=NAME)
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    for shape, _ in CASES:
        for label, params in bindings(kernel, shape):
            path = directory / f"{'x'.join(map(str, shape))}-{label}.py"
            path.write_text(kernel.source("triton", {"CAUSAL": False}, params))
            manifest.append(dict(shape=shape, label=label, params=params, module=path.name))
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--generate")
    ap.add_argument("--modules")
    ap.add_argument("--out", default=os.environ.get("OUT", str(pathlib.Path(__file__).resolve().parents[1] / "lab" / "results")))
    args = ap.parse_args()
    if args.generate:
        return generate(args.generate)
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from run_bench import nonzero, timed, write_results
    if args.modules:
        directory = pathlib.Path(args.modules)
        manifest = json.loads((directory / "manifest.json").read_text())

        def launcher(entry):
            spec = importlib.util.spec_from_file_location(entry["module"][:-3].replace("-", "_"),
                                                          directory / entry["module"])
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            return getattr(module, NAME)
    else:
        import attention_kernels as AK
        import tessel.language as T
        kernel = AK.attention(T.bf16, name=NAME)
        manifest = [dict(shape=shape, label=label, params=params) for shape, _ in CASES
                    for label, params in bindings(kernel, shape)]

        def launcher(entry):
            return kernel._launcher({"CAUSAL": False}, entry["params"])
    rows = []
    doc = dict(date=datetime.date.today().isoformat(), device=torch.cuda.get_device_name(),
               torch=torch.__version__, what="decode-shaped attention, bf16, CAUSAL=False, key fold split "
               "across programs (FOLD_SPLIT) vs SDPA; ms = median of 20 CUDA-event timings after warm-up; "
               "each variant checked against SDPA's math backend first", rows=rows)
    for shape, _ in CASES:
        B, H, S, Tk, D = shape
        torch.manual_seed(0)
        q = nonzero(B, H, S, D, dtype=torch.bfloat16)
        k, v = (nonzero(B, H, Tk, D, dtype=torch.bfloat16) for _ in range(2))
        scale = 1.0 / math.sqrt(D)
        with sdpa_kernel([SDPBackend.MATH]):
            ref = F.scaled_dot_product_attention(q, k, v, scale=scale)
        row = dict(B=B, H=H, S=S, T=Tk, D=D, kv_bytes=2 * B * H * Tk * D * 2)
        o = torch.empty_like(q)
        for entry in manifest:
            if tuple(entry["shape"]) != shape:
                continue
            name = "tessel_" + entry["label"]
            row[name + "_params"] = entry["params"]
            try:
                go = launcher(entry)
                fn = lambda go=go: go(q, k, v, o, scale=scale)
                o.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                err = (o.double() - ref.double()).abs().max().item()
                row[name + "_err"] = err
                if err <= 2e-2:
                    row[name + "_ms"] = timed(fn)
            except Exception as e:  # a failed variant is a result too
                row[name + "_error"] = f"{type(e).__name__}: {e}"[:300]
        for peer, backends in (("sdpa_default", None), ("sdpa_flash", [SDPBackend.FLASH_ATTENTION]),
                               ("sdpa_cudnn", [SDPBackend.CUDNN_ATTENTION])):
            def call(backends=backends):
                if backends is None:
                    return F.scaled_dot_product_attention(q, k, v, scale=scale)
                with sdpa_kernel(backends):
                    return F.scaled_dot_product_attention(q, k, v, scale=scale)
            try:
                r = call()
                torch.cuda.synchronize()
                if (r.double() - ref.double()).abs().max().item() <= 2e-2:
                    row[peer + "_ms"] = timed(call)
            except Exception as e:
                row[peer + "_error"] = f"{type(e).__name__}: {e}"[:200]
        timings = {k2[:-3]: t for k2, t in row.items() if k2.startswith("tessel") and k2.endswith("_ms")}
        if timings:
            best = min(timings, key=timings.get)
            row["tessel_best"] = best
            row["tessel_best_GBps"] = row["kv_bytes"] / timings[best] / 1e6
            row["best_vs_sdpa_default"] = row.get("sdpa_default_ms", float("nan")) / timings[best]
            if "tessel_defaults" in timings:
                row["defaults_vs_sdpa_default"] = row.get("sdpa_default_ms", float("nan")) / timings["tessel_defaults"]
        print(json.dumps(row), flush=True)
        rows.append(row)
        write_results(doc, args.out, "decode-split", quiet=True)


if __name__ == "__main__":
    main()
