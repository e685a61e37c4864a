"""The streaming WARPS floor by bytes (each thread moves 32 bytes of the largest loaded fragment,
1 to 4 warps) against the former fixed floor of 4 warps, on the H200, in one process: for every row
case of bench/defaults.py and a few other streaming kernels, the untuned call's binding (covering
BLOCK, WARPS by the rule) head to head with the same binding at the former WARPS, each checked first.
    TESSEL_BIN=scratch/bin/tessel PYTHONPATH=python:bench:examples python3 bench/warps_floor.py --out DIR
"""
import argparse
import datetime
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples"), str(ROOT / "bench")]


def extra_cases(torch):
    import cumsum, gemv, vector_add  # noqa: E401
    x = torch.randn(1 << 24, device="cuda")
    y = torch.randn(1 << 24, device="cuda")
    yield dict(label="vector_add f32 2^24", kernel=vector_add.vector_add, views=[x, y, torch.empty_like(x)],
               scalars={"scale": 1.5}, outs=[2], ref=lambda v: [torch.relu(v[0] + v[1]) * 1.5], tol=(1e-6, 1e-6))
    rows = torch.randn(4096, 1024, device="cuda")
    yield dict(label="cumsum f32 4096x1024", kernel=cumsum.cumsum, views=[rows, torch.empty_like(rows)],
               scalars={}, outs=[1], ref=lambda v: [torch.cumsum(v[0], 1)], tol=(1e-3, 1e-4))
    a = torch.randn(8192, 4096, device="cuda", dtype=torch.float16)
    xv = torch.randn(4096, device="cuda", dtype=torch.float16)
    yield dict(label="gemv f16 8192x4096", kernel=gemv.gemv, views=[a, xv, torch.empty(8192, device="cuda")],
               scalars={}, outs=[2], ref=lambda v: [v[0].float() @ v[1].float()], tol=(5e-2, 1e-2))


def main():
    import torch
    import defaults as D
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    args = parser.parse_args()
    torch.manual_seed(0)
    results = []
    cases = [c for c in D.cases(torch, False) if not c["label"].startswith("matmul")]
    try:
        cases += list(extra_cases(torch))
    except Exception as e:  # noqa: BLE001 - an example's signature differs: said, the rest runs
        D.say(f"extra cases: {type(e).__name__}: {e}")
    for case in cases:
        row = {"case": case["label"]}
        try:
            k = case["kernel"]
            new = k.call_defaults(*case["views"], **case["scalars"])
            old = dict(new, WARPS=max(4, new["WARPS"])) if not case["label"].startswith("argmax") else dict(new)
            row["new"], row["old"] = new, old
            if new == old:
                row["same"] = True
                print(json.dumps(row), flush=True)
                results.append(row)
                continue
            launchers = {"new": k._launcher({}, new), "old": k._launcher({}, old)}
            for name, launch in launchers.items():
                views = [t.clone() for t in case["views"]]
                launch(*views, **case["scalars"])
                torch.cuda.synchronize()
                ok, err = D.correct(torch, case, views)
                row[f"{name}_correct"] = ok
            timers = {n: D.timer_for(torch, case, lambda v, l=l: l(*v, **case["scalars"])) for n, l in launchers.items()}
            ms = D.head_to_head(timers)
            row["ms"] = ms
            row["new_vs_old"] = ms["old"] / ms["new"]
        except Exception as e:  # noqa: BLE001
            row["error"] = f"{type(e).__name__}: {e}"[:400]
        print(json.dumps(row), flush=True)
        results.append(row)
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "what": "untuned binding with the bytes floor of WARPS vs the same binding at the former floor (4)",
           "timing": "median of 3 alternating rounds of CUDA-graph medians (bench/defaults.py head_to_head)",
           "results": results}
    from run_bench import write_results
    write_results(doc, args.out, "warps-floor")


if __name__ == "__main__":
    main()
