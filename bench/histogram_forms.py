"""Histogram forms from pre-generated Triton sources (issue 16), against torch.bincount, in one process.

Each `SOURCES/histogram__<NAME>=<V>__....py` is `tessel compile examples/histogram.py:histogram
--target=triton --emit=source --param NAME=V ...` generated on the CPU machine (the GPU machine needs no
tessel binary then). For each case (2^26 int32 values into B bins, drawn in range, so every form does
the same work as the peers) every binding is checked exactly against torch.bincount first, then timed:
median of CUDA-event timings of one call after warm-up; a tessel call includes the wrapper's workspace
allocation. Writes a dated JSON to lab/results/.
Usage on the GPU machine: python3 bench/histogram_forms.py SOURCES [--tag histogram-forms]
"""
import argparse
import datetime
import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(fn, reps=20, warmup=3):
    from run_bench import timed as shared  # the same timing as the rest of bench/ (imports torch)
    return shared(fn, reps, warmup)


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem.replace("=", "_").replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.histogram


def binding(path):
    return dict(part.split("=") for part in path.stem.split("__")[1:])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources")
    parser.add_argument("--n", type=int, default=1 << 26)
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    parser.add_argument("--tag", default="histogram-forms")
    args = parser.parse_args()
    import torch
    import triton
    results = []
    for bins in (1024, 65536):
        x = torch.randint(0, bins, (args.n,), device="cuda", dtype=torch.int32)
        want = torch.bincount(x, minlength=bins).to(torch.int32)
        bincount_ms = timed(lambda: torch.bincount(x, minlength=bins))
        print(json.dumps({"B": bins, "bincount_ms": bincount_ms}), flush=True)
        for path in sorted(pathlib.Path(args.sources).glob("histogram__*.py")):
            b = binding(path)
            if int(b.get("B", bins)) != bins:
                continue
            entry = {"B": bins, "N": args.n, "params": {k: v for k, v in b.items() if k != "B"}}
            try:
                fn = load(path)
                h = torch.empty(bins, device="cuda", dtype=torch.int32)
                fn(x, h)
                torch.cuda.synchronize()
                entry["correct"] = bool(torch.equal(h, want))
                if entry["correct"]:
                    entry["tessel_ms"] = timed(lambda: fn(x, h))
                    entry["bincount_ms"] = bincount_ms
                    entry["speedup_vs_bincount"] = bincount_ms / entry["tessel_ms"]
                    fn(x, h)
                    torch.cuda.synchronize()
                    entry["correct_after_timing"] = bool(torch.equal(h, want))
                else:
                    entry["max_abs_err"] = int((h.long() - want.long()).abs().max().item())
            except Exception as e:  # a failure is a result too
                entry["error"] = f"{type(e).__name__}: {e}"[:400]
            print(json.dumps(entry), flush=True)
            results.append(entry)
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "triton": triton.__version__,
           "timing": "median of 20 CUDA-event timings of one call after 3 warm-up calls; exact check first",
           "results": results}
    from run_bench import write_results
    write_results(doc, args.out, args.tag)


if __name__ == "__main__":
    main()
