"""Tuner against an exhaustive sweep of the same declared domain, timed in the same run (issue 8).

For softmax f32 16384x8192 on the GPU: the guided search under a time budget, then every candidate
of the domain that the resource model does not prune, then the two winners re-measured head to
head. Writes a dated JSON under bench/results/ (or --out). Usage on the GPU machine:
    TESSEL_BIN=build-static/bin/tessel PYTHONPATH=python:examples python3 bench/sweep.py --budget 25
"""
import argparse
import datetime
import json
import pathlib
import statistics
import sys
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=25.0, help="the guided search's budget in seconds")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples")]
    from tessel import _tune
    import softmax as example
    kernel = example.softmax
    torch.manual_seed(0)
    x = (torch.rand(16384, 8192, device="cuda") * 0.75 + 0.25) * torch.where(
        torch.rand(16384, 8192, device="cuda") < 0.5, -1.0, 1.0)
    y = torch.empty_like(x)
    kernel(x, y)
    torch.cuda.synchronize()
    assert torch.allclose(y, torch.softmax(x, 1), rtol=1e-5, atol=1e-6), "default candidate is wrong"

    started = time.monotonic()
    guided, guided_report = _tune.tune(kernel, [x, y], {}, {}, budget_s=args.budget, verbose=False)
    guided_wall = time.monotonic() - started
    started = time.monotonic()
    best, sweep_report = _tune.tune(kernel, [x, y], {}, {}, budget_s=1e9, verbose=False, keep_times=True)
    sweep_wall = time.monotonic() - started

    # Head to head, alternating, on the same inputs.
    launches = {"guided": kernel._launcher({}, guided), "sweep": kernel._launcher({}, best)}
    samples = {k: [] for k in launches}
    for _ in range(5):
        for k, launch in launches.items():
            samples[k].append(_tune._median_ms(torch, lambda: launch(x, y), 10))
    guided_ms, sweep_ms = (statistics.median(samples[k]) for k in ("guided", "sweep"))
    doc = {
        "date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
        "kernel": "softmax", "shape": {"M": 16384, "N": 8192}, "dtype": "f32",
        "space": {k: v[0] for k, v in kernel._space({}).items()},
        "guided": {"budget_s": args.budget, "wall_s": round(guided_wall, 1), "winner": guided,
                   "timed": guided_report["timed"], "pruned": guided_report["pruned"],
                   "skipped_for_budget": guided_report["skipped_for_budget"]},
        "sweep": {"wall_s": round(sweep_wall, 1), "winner": best, "timed": sweep_report["timed"],
                  "pruned": sweep_report["pruned"], "rejected": len(sweep_report["rejected"])},
        "head_to_head_ms": {"guided": guided_ms, "sweep": sweep_ms},
        "guided_vs_sweep": sweep_ms / guided_ms,
        "timing": "median of 5 alternating CUDA-graph medians (10 launches each)",
        "all_ms": sorted(([p, ms] for p, ms in sweep_report["times"]), key=lambda t: t[1]),
    }
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{doc['date']}-h200-sweep-softmax.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({k: v for k, v in doc.items() if k != "all_ms"}, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
