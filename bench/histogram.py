"""Histograms and scatter-add (issue 16) against torch, in one process on the GPU.

Cases (the issue's targets):
  - histogram of 2^26 int32 values into 1024 bins and into 65536 bins (examples/histogram.py),
    against torch.bincount and a zero-filled torch.Tensor.index_add_ of ones;
  - scatter_add of 2^24 f32 values into 2^16 slots (examples/scatter_add.py, grad_table[ids[t], :] +=
    grad_out[t, :]) at two layouts: D = 64 (T = 2^18 tokens, V = 2^10 rows) and D = 1 (T = 2^24,
    V = 2^16), against torch.Tensor.index_add_.

Correctness first: every tessel result is compared with the peer's on the same random inputs (exact
for the integer histograms; scatter-add sums in another order, so within a float tolerance) before
anything is timed. Times are medians of CUDA-event timings after warm-up; each call includes what the
caller must do (the peers' zero fill, tessel's whole launch). Writes a dated JSON to lab/results/.
Usage on the GPU machine:
    TESSEL_BIN=build-static/bin/tessel PYTHONPATH=python:examples python3 bench/histogram.py [--tune S]
"""
import argparse
import datetime
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from run_bench import run_cases, timed, write_results  # noqa: E402  the same timing as the rest of bench/


def histogram_case(n, bins, tune_s):
    import torch
    import histogram as H
    entry = {"case": "histogram", "N": n, "B": bins}
    # The example counts values in [0, B) and skips the rest; the peers count only in-range values,
    # so the inputs are drawn in range (the same work for everyone).
    x = torch.randint(0, bins, (n,), device="cuda", dtype=torch.int32)
    h = torch.empty(bins, device="cuda", dtype=torch.int32)
    want = torch.bincount(x, minlength=bins).to(torch.int32)
    if tune_s > 0:
        H.histogram.tune(x, h, budget_s=tune_s, verbose=False)
    H.histogram(x, h)
    torch.cuda.synchronize()
    entry["correct"] = bool(torch.equal(h, want))
    if not entry["correct"]:
        entry["max_abs_err"] = int((h.long() - want.long()).abs().max().item())
        return entry
    ones = torch.ones(n, device="cuda", dtype=torch.int32)
    idx = x.long()  # index_add_ takes int64 indices; the cast is the caller's, outside the timing
    acc = torch.empty(bins, device="cuda", dtype=torch.int32)

    def index_add():
        acc.zero_()
        acc.index_add_(0, idx, ones)

    index_add()
    assert torch.equal(acc, want), "index_add_ peer disagrees with bincount"
    entry["tessel_ms"] = timed(lambda: H.histogram(x, h))
    entry["bincount_ms"] = timed(lambda: torch.bincount(x, minlength=bins))
    entry["index_add_ms"] = timed(index_add)
    entry["speedup_vs_bincount"] = entry["bincount_ms"] / entry["tessel_ms"]
    entry["speedup_vs_index_add"] = entry["index_add_ms"] / entry["tessel_ms"]
    entry["tessel_GBps"] = n * 4 / entry["tessel_ms"] / 1e6
    return entry


def scatter_add_case(tokens, dim, rows, tune_s):
    import torch
    import scatter_add as S
    entry = {"case": "scatter_add", "T": tokens, "D": dim, "V": rows}
    grad_out = torch.rand(tokens, dim, device="cuda") * 0.75 + 0.25
    ids = torch.randint(0, rows, (tokens,), device="cuda", dtype=torch.int32)
    base = torch.rand(rows, dim, device="cuda")
    got = base.clone()
    if tune_s > 0:
        S.scatter_add.tune(grad_out, ids, base.clone(), budget_s=tune_s, verbose=False)
    S.scatter_add(grad_out, ids, got)
    want = base.double().index_add_(0, ids.long(), grad_out.double())
    torch.cuda.synchronize()
    # f32 sums of about T / V terms of size < 1 in any order: relative error well below 1e-4.
    err = ((got.double() - want).abs() / want.abs().clamp_min(1.0)).max().item()
    entry["max_rel_err"] = err
    entry["correct"] = err < 1e-4
    if not entry["correct"]:
        return entry
    table = base.clone()
    idx = ids.long()
    entry["tessel_ms"] = timed(lambda: S.scatter_add(grad_out, ids, table))
    entry["index_add_ms"] = timed(lambda: table.index_add_(0, idx, grad_out))
    entry["speedup_vs_index_add"] = entry["index_add_ms"] / entry["tessel_ms"]
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tune", type=float, default=0.0, help="seconds to tune each tessel kernel first")
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    parser.add_argument("--tag", default="histogram")
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples")]
    import torch
    import triton
    if not torch.cuda.is_available():
        sys.exit("bench/histogram.py needs a CUDA device")
    cases = [lambda: histogram_case(1 << 26, 1024, args.tune),
             lambda: histogram_case(1 << 26, 65536, args.tune),
             lambda: scatter_add_case(1 << 18, 64, 1 << 10, args.tune),
             lambda: scatter_add_case(1 << 24, 1, 1 << 16, args.tune)]
    results = run_cases(cases)
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "triton": triton.__version__, "note": args.note,
           "timing": "median of 20 CUDA-event timings of one call after 3 warm-up calls; correctness checked first",
           "tuning": f"{args.tune} s per kernel" if args.tune > 0 else "defaults", "results": results}
    write_results(doc, args.out, args.tag)


if __name__ == "__main__":
    main()
