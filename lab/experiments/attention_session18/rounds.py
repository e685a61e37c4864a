"""Interleaved rounds on the H200: grouped-query causal (B4 H32 S=T=4096 D128 bf16, 4 query heads per
key/value head) with each configuration of the hand Gluon kernels and SDPA's default (enable_gqa),
checked first, then timed in alternation, ROUNDS rounds of a median over 10 CUDA-event timings each.
    PYTHONPATH=python:bench python3 rounds.py OUT.json ROUNDS CONFIG..."""
import json
import statistics
import sys

import torch

from probe import run_cfg, sdpa
from run_bench import nonzero, timed


def main():
    out, rounds = sys.argv[1], int(sys.argv[2])
    configs = [(c[:3],) + tuple(int(x) for x in c[3:].split(",")) if c[:3] in ("ws:", "ps:") else tuple(int(x) for x in c.split(","))
               for c in sys.argv[3:]]
    B, H, G, S, D = 4, 32, 4, 4096, 128
    q = nonzero(B, H, S, D, dtype=torch.bfloat16)
    k = nonzero(B, H // G, S, D, dtype=torch.bfloat16)
    v = nonzero(B, H // G, S, D, dtype=torch.bfloat16)
    flops = 4.0 * B * H * D * S * (S + 1) / 2
    peer = sdpa(q, k, v, True)
    ref = peer().float()
    fns = {"sdpa_default": peer}
    for cfg in configs:
        fn = (lambda c: lambda: run_cfg(c, q, k, v, True, G))(cfg)
        err = (fn().float() - ref).abs().max().item()
        print("check", cfg, err, flush=True)
        if err < 2e-2:
            fns["gluon_" + "_".join(map(str, cfg))] = fn
    ms = {name: [] for name in fns}
    for r in range(rounds):
        for name, fn in fns.items():
            ms[name].append(timed(fn, reps=10))
    res = {name: dict(ms=m, median_ms=statistics.median(m), TFLOPs=flops / statistics.median(m) / 1e9,
                      vs_sdpa_per_round=[a / b for a, b in zip(ms["sdpa_default"], m)])
           for name, m in ms.items()}
    for name, r in res.items():
        print(name, round(r["TFLOPs"]), "median ratio to SDPA", round(statistics.median(r["vs_sdpa_per_round"]), 3),
              "min", round(min(r["vs_sdpa_per_round"]), 3), flush=True)
    json.dump(dict(case=dict(B=B, H=H, G=G, S=S, D=D, kind="gqa causal bf16"), rounds=rounds, results=res),
              open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
