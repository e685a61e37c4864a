"""Device: generated modules and SDPA's default (enable_gqa) timed in alternation in one process, grouped-query
causal bf16 B4 H32 (8 key/value heads) S=T=4096 D128, after a check of each against f32 SDPA:
python3 rounds.py ROUNDS mods/A.py [mods/B.py ...] -> one JSON line (per-round TFLOP/s and ratios to SDPA)."""
import json
import sys

import torch
import torch.nn.functional as F

from run_one import load, timed


def main(rounds, paths, B=4, H=32, G=8, S=4096, D=128):
    torch.manual_seed(0)
    q = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, G, S, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, G, S, D, device="cuda", dtype=torch.bfloat16)
    scale = D ** -0.5
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True, scale=scale, enable_gqa=True)
    calls, errs = {}, {}
    for p in paths:
        mod, o = load(p), torch.empty_like(q)
        mod.gqa_attention(q, k, v, o, scale=scale)
        torch.cuda.synchronize()
        errs[p] = (o.float() - ref).abs().max().item()
        calls[p] = (lambda m=mod, o=o: m.gqa_attention(q, k, v, o, scale=scale))
    calls["sdpa"] = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=True)
    flops = 4 * B * H * S * S * D / 2
    per = {name: [] for name in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            per[name].append(flops / timed(fn, reps=10, warm=2) / 1e9)
    ratios = {p: sorted(a / b for a, b in zip(per[p], per["sdpa"])) for p in paths}
    med = lambda xs: sorted(xs)[len(xs) // 2]
    print(json.dumps({"max_abs_err": errs, "TFLOPs": per, "median_TFLOPs": {n: med(x) for n, x in per.items()},
                      "ratio_sdpa_median": {p: med(r) for p, r in ratios.items()},
                      "ratio_sdpa_min_max": {p: [r[0], r[-1]] for p, r in ratios.items()}}))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
