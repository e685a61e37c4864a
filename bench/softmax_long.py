"""Row softmax over long rows (issue 13: "online softmax at 4096 x 65536 f32 >= 1.0x torch.compile"):
examples/softmax.py (ordinary max / sum-of-exp / normalize reductions), examples/softmax_relaxed.py (the
same code under relaxed_normalization: pgpu-online-normalize joins the two summary loops) and
examples/online_softmax.py (the online normalized summary written as a region fold), against torch.softmax and
torch.compile(torch.softmax), one process, correctness checked first, median of CUDA-event timings.

    TESSEL_BIN=build-static/bin/tessel PYTHONPATH=python:examples python3 bench/softmax_long.py [--out DIR]
"""
import argparse
import datetime
import json
import pathlib

import torch

from run_bench import timed, write_results  # the same timing as the rest of bench/


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parents[1] / "lab" / "results"))
    parser.add_argument("--shapes", default="4096x65536,1024x262144")
    # online_softmax's record summary is folded one element at a time today (README): at these
    # shapes one call takes minutes (a 400 s run on the H200 did not finish its first), so it is opt-in.
    parser.add_argument("--kernels", default="softmax,softmax_relaxed",
                        help="comma-separated: softmax,softmax_relaxed,online_softmax")
    args = parser.parse_args()
    import softmax as S
    import softmax_relaxed as R
    import online_softmax as O
    compiled = torch.compile(lambda t: torch.softmax(t, -1))
    rows = []
    for shape in args.shapes.split(","):
        M, N = map(int, shape.split("x"))
        x = (torch.rand(M, N, device="cuda") * 8 - 4) + 0.25
        y = torch.empty_like(x)
        want = torch.softmax(x.double(), -1).float()
        gb = 2 * x.numel() * 4 / 1e9  # one read and one write: the least any softmax moves
        row = {"M": M, "N": N}
        peers = {"torch": lambda: torch.softmax(x, -1), "torch_compile": lambda: compiled(x)}
        for name, fn in peers.items():
            row[name + "_ms"] = timed(fn)
        chosen = args.kernels.split(",")
        for name, kern in [(n, k) for n, k in (("softmax", S.softmax), ("softmax_relaxed", R.softmax_relaxed),
                                                             ("online_softmax", O.online_softmax))
                           if n in chosen]:
            for params in (None, {"BLOCK": 4096}, {"BLOCK": 8192}, {"BLOCK": 16384}):
                key = name + ("" if params is None else f"_B{params['BLOCK']}")
                try:
                    launch = (lambda: kern(x, y)) if params is None else (lambda l=kern._launcher({}, params): l(x, y))
                    import time
                    started = time.monotonic()
                    y.fill_(float("nan")); launch(); torch.cuda.synchronize()
                    first = time.monotonic() - started
                    err = (y - want).abs().max().item()
                    row[key + "_err"] = err
                    if first > 5.0:  # compile included; a kernel this slow is reported, not timed
                        row[key + "_first_call_s"] = round(first, 1)
                    elif err < 1e-5:
                        row[key + "_ms"] = timed(launch)
                    print(json.dumps({key: {k: v for k, v in row.items() if k.startswith(key)}}), flush=True)
                except Exception as e:  # a binding past a resource limit
                    row[key + "_error"] = f"{type(e).__name__}: {e}"[:200]
        best = {k: v for k, v in row.items() if k.endswith("_ms") and not k.startswith("torch")}
        for k, v in best.items():
            row[k.replace("_ms", "_vs_compile")] = row["torch_compile_ms"] / v
            row[k.replace("_ms", "_GBps")] = gb / (v / 1e3)
        print(json.dumps(row), flush=True)
        rows.append(row)
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "results": rows,
           "timing": "median of 20 CUDA-event timings after 3 warm-up calls; correctness checked first"}
    write_results(doc, args.out, "softmax-long", quiet=True)


if __name__ == "__main__":
    main()
