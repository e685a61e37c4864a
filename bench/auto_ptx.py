"""`target="auto"` with the PTX provider among the choices (issue 16's histogram, issue 17), on the H200.

Each case: a fresh `target="auto"` kernel tunes (a short budget per provider; cuTile joins where its
toolchain is set up, else it is left out with a warning), then the auto call, each provider's defaults and
the peer are checked against a reference on random inputs, then timed (median of CUDA events,
run_bench.timed) in one process. Usage on the GPU machine (static tessel binary and libtessel_cuda.so):
    TESSEL_BIN=.../tessel TESSEL_CUDA_LIB=.../libtessel_cuda.so PYTHONPATH=python:bench \\
        python3 bench/auto_ptx.py --out lab/results
"""
import argparse
import datetime
import importlib
import json
import pathlib
import sys
import time
import warnings

import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples"), str(ROOT / "bench")]
from run_bench import nonzero, timed, write_results  # noqa: E402


def cases():
    n = 1 << 26
    x = torch.randint(0, 1024, (n,), device="cuda", dtype=torch.int32)
    y = torch.randint(0, 65536, (n,), device="cuda", dtype=torch.int32)
    rows = nonzero(16384, 8192)
    values = torch.empty(16384, device="cuda")
    return [
        ("histogram 2^26 -> 1024 bins", "histogram", [x, torch.empty(1024, device="cuda", dtype=torch.int32)],
         lambda: torch.bincount(x, minlength=1024).to(torch.int32), "torch.bincount", True),
        ("histogram 2^26 -> 65536 bins", "histogram", [y, torch.empty(65536, device="cuda", dtype=torch.int32)],
         lambda: torch.bincount(y, minlength=65536).to(torch.int32), "torch.bincount", True),
        ("argmax f32 16384x8192", "argmax", [rows, values, torch.empty(16384, device="cuda", dtype=torch.int64)],
         lambda: torch.argmax(rows, dim=1), "torch.argmax", True),
        ("softmax f32 16384x8192", "softmax", [rows, torch.empty_like(rows)],
         lambda: torch.softmax(rows, dim=1), "torch.softmax", False),
    ]


def kernel(example, target):
    from tessel import _kernel
    fn = getattr(importlib.import_module(example), example).fn
    return _kernel.Kernel(fn, name=example, target=target)


def close(got, want, exact):
    if exact:
        return bool(torch.equal(got.to(want.dtype), want))
    return bool(torch.allclose(got.float(), want.float(), rtol=2e-2, atol=2e-2))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    parser.add_argument("--budget", type=float, default=20.0, help="tuning seconds per provider")
    args = parser.parse_args()
    torch.manual_seed(0)
    results = []
    for name, example, tensors, peer, peer_name, exact in cases():
        row = {"case": name}
        try:
            want = peer()
            out = tensors[-1]
            auto = kernel(example, "auto")
            started = time.monotonic()
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                auto.tune(*tensors, budget_s=args.budget, verbose=False)
            row["tune_s"] = round(time.monotonic() - started, 1)
            row["left_out"] = sorted({str(w.message)[:200] for w in seen if "leaves out" in str(w.message)})
            rep = auto.last_tuning or {}
            row["choice"] = rep.get("provider") or rep.get("only_provider")
            row["head_to_head_ms"] = rep.get("head_to_head_ms")
            row["per_provider"] = {p: {k: v for k, v in r.items() if k in ("winner", "winner_ms", "timed")}
                                   for p, r in (rep.get("providers") or {}).items()}
            calls = {"auto": lambda: auto(*tensors)}
            for provider in ("triton", "ptx"):
                k = kernel(example, provider)
                calls[f"{provider} defaults"] = (lambda k=k: k(*tensors))
            calls[peer_name] = peer
            for label, fn in calls.items():
                out.fill_(-1)
                got = fn()
                torch.cuda.synchronize()
                got = out if got is None else got
                ok = close(got, want, exact)
                row[f"{label} correct"] = ok
                if ok:
                    row[f"{label} ms"] = timed(fn)
            if "auto ms" in row:
                row["auto vs peer"] = row[f"{peer_name} ms"] / row["auto ms"]
        except Exception as e:  # noqa: BLE001
            row["error"] = f"{type(e).__name__}: {e}"[:600]
        print(json.dumps(row), flush=True)
        results.append(row)
        doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "timing": "median of 20 CUDA-event timings (run_bench.timed) after "
               "correctness against the peer", "results": results}
        write_results(doc, args.out, "auto-ptx", quiet=True)


if __name__ == "__main__":
    main()
