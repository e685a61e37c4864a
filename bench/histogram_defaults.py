"""Issue 16 at the untuned call's defaults: histograms and scatter-add through the Triton and PTX
providers against torch, in one process on the GPU (no tuning: a fresh TESSEL_CACHE, so no tuned winner
stands in for the defaults).

Cases:
  - histogram (examples/histogram.py) of 2^26 int32 values uniform in [0, B) into B = 1024 and 65536
    bins, each provider at its call defaults (`k(x, h)`), and the PTX provider's declared defaults
    (`k.launch(..., params={})`: the direct atomics at 65536 bins, the binding the call took before
    HBINS x HPASSES covered B), against torch.bincount; the bound parameters of each are recorded;
  - the same at 2^20 and 2^22 values into 65536 bins (few programs of the ranged form: is a floor on
    the program count, or the direct atomics, needed there?);
  - correctness at odd shapes at the call defaults of both providers: N = 1000003 values in [-3, B + 3)
    into B = 0, 1, 97, 40009, 65521 (primes and bins that are not a multiple of HBINS), 65537 (3 passes
    of 32768) and 262145 (past HBINS x 8: the direct atomics), exact against a masked torch.bincount;
  - scatter_add (examples/scatter_add.py) of 2^24 f32 values into 2^16 slots (D = 1) and of 2^18 rows of
    64 into 2^10 (D = 64), each provider's call defaults against torch.Tensor.index_add_.

Correctness first: every result is checked (histograms exactly; scatter-add within 1e-4 relative, it
sums in another order) before anything is timed. Times: medians of 20 CUDA-event timings after 3
warm-up calls (bench/run_bench.timed); a tessel call includes its workspace allocation. Prints one JSON
line per case and writes lab/results/<date>-h200-histogram-defaults.json (--out, --tag).
Usage on the GPU machine (the PTX provider launches through libtessel_cuda.so: TESSEL_CUDA_LIB, else
lib/ beside the binary's bin/):
    TESSEL_BIN=<static tessel> PYTHONPATH=python:bench:examples python3 bench/histogram_defaults.py
"""
import argparse
import datetime
import os
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEVICE = "cuda"


def bound(kernel, provider, fact):
    """The values the launched module binds (its `<kernel>_PARAMS`): declared defaults, the call's
    covering defaults, and what the compiler derives from them (PTX THREADS follows the largest fragment)."""
    launch = kernel._launcher({}, fact, provider)
    return {n: v for n, (_, v) in launch.__globals__[f"{kernel.name}_PARAMS"].items()}


def kernels(example):
    import importlib
    from tessel import _kernel
    fn = getattr(importlib.import_module(example), example).fn
    return {p: _kernel.Kernel(fn, name=example, target=p) for p in ("triton", "ptx")}


def histogram_case(n, bins):
    import torch
    from run_bench import timed
    entry = {"case": "histogram", "N": n, "B": bins}
    x = torch.randint(0, bins, (n,), device=DEVICE, dtype=torch.int32)
    h = torch.empty(bins, device=DEVICE, dtype=torch.int32)
    want = torch.bincount(x, minlength=bins).to(torch.int32)
    entry["bincount_ms"] = timed(lambda: torch.bincount(x, minlength=bins))
    calls = {}
    for provider, k in kernels("histogram").items():
        calls[f"{provider} defaults"] = (k, provider, k._fact_params({}, [x, h], provider), lambda k=k: k(x, h))
    k = calls["ptx defaults"][0]
    calls["ptx declared (direct)"] = (k, "ptx", None, lambda: k.launch(x, h, target="ptx", params={}))
    for label, (k, provider, fact, call) in calls.items():
        row = {}
        try:
            row["params"] = bound(k, provider, fact)
            h.fill_(-1)
            call()
            torch.cuda.synchronize()
            row["correct"] = bool(torch.equal(h, want))
            if row["correct"]:
                row["ms"] = timed(call)
                row["speedup_vs_bincount"] = entry["bincount_ms"] / row["ms"]
            else:
                row["max_abs_err"] = int((h.long() - want.long()).abs().max().item())
        except Exception as e:  # a failure is a result too
            row["error"] = f"{type(e).__name__}: {e}"[:500]
        entry[label] = row
    return entry


def odd_shapes_case(n=1000003, bins_list=(0, 1, 97, 40009, 65521, 65537, 262145)):
    import torch
    entry = {"case": "histogram odd shapes", "N": n, "results": []}
    ks = kernels("histogram")
    for bins in bins_list:
        x = torch.randint(-3, bins + 3, (n,), device=DEVICE, dtype=torch.int32)
        h = torch.empty(bins, device=DEVICE, dtype=torch.int32)
        inside = x[(x >= 0) & (x < bins)]
        want = torch.bincount(inside, minlength=bins).to(torch.int32)[:bins]
        for provider, k in ks.items():
            row = {"B": bins, "provider": provider}
            try:
                row["params"] = k._fact_params({}, [x, h], provider) or {}
                h.fill_(-1)
                k(x, h)
                torch.cuda.synchronize()
                row["correct"] = bool(torch.equal(h, want))
            except Exception as e:  # noqa: BLE001
                row["error"] = f"{type(e).__name__}: {e}"[:300]
            entry["results"].append(row)
    entry["all_correct"] = all(r.get("correct") for r in entry["results"])
    return entry


def scatter_add_case(tokens, dim, rows):
    import torch
    from run_bench import timed
    entry = {"case": "scatter_add", "T": tokens, "D": dim, "V": rows}
    grad_out = torch.rand(tokens, dim, device=DEVICE) * 0.75 + 0.25
    ids = torch.randint(0, rows, (tokens,), device=DEVICE, dtype=torch.int32)
    base = torch.rand(rows, dim, device=DEVICE)
    want = base.double().index_add_(0, ids.long(), grad_out.double())
    idx = ids.long()
    table = base.clone()
    entry["index_add_ms"] = timed(lambda: table.index_add_(0, idx, grad_out))
    for provider, k in kernels("scatter_add").items():
        row = {}
        try:
            got = base.clone()
            row["params"] = bound(k, provider, k._fact_params({}, [grad_out, ids, got], provider))
            k(grad_out, ids, got)
            torch.cuda.synchronize()
            # f32 sums of about T / V terms of size < 1 in any order: relative error well below 1e-4.
            row["max_rel_err"] = ((got.double() - want).abs() / want.abs().clamp_min(1.0)).max().item()
            row["correct"] = row["max_rel_err"] < 1e-4
            if row["correct"]:
                row["ms"] = timed(lambda k=k: k(grad_out, ids, table))
                row["speedup_vs_index_add"] = entry["index_add_ms"] / row["ms"]
        except Exception as e:  # noqa: BLE001
            row["error"] = f"{type(e).__name__}: {e}"[:500]
        entry[f"{provider} defaults"] = row
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    parser.add_argument("--tag", default="histogram-defaults")
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    # The untuned call: no tuning cache a tuned winner could come from (set before tessel is imported).
    os.environ["TESSEL_CACHE"] = tempfile.mkdtemp(prefix="tessel-defaults-")
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples"), str(ROOT / "bench")]
    import torch
    import triton
    if not torch.cuda.is_available():
        sys.exit("bench/histogram_defaults.py needs a CUDA device")
    torch.manual_seed(0)
    from run_bench import run_cases, write_results
    # 2^20 and 2^22 values into 65536 bins: the ranged form's BLOCK_P (8 elements per merged bin) leaves
    # 2 and 8 programs there; whether the direct atomics should stay at so few elements per bin.
    cases = [lambda: histogram_case(1 << 26, 1024), lambda: histogram_case(1 << 26, 65536), odd_shapes_case,
             lambda: histogram_case(1 << 20, 65536), lambda: histogram_case(1 << 22, 65536),
             lambda: scatter_add_case(1 << 24, 1, 1 << 16), lambda: scatter_add_case(1 << 18, 64, 1 << 10)]
    results = run_cases(cases)
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "triton": triton.__version__, "note": args.note,
           "timing": "median of 20 CUDA-event timings of one call after 3 warm-up calls; correctness checked first",
           "tuning": "none: each provider's untuned call defaults (fresh TESSEL_CACHE)", "results": results}
    write_results(doc, args.out, args.tag)


if __name__ == "__main__":
    main()
