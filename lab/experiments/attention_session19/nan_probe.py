"""Device: where a module's output goes wrong at one shape: python3 nan_probe.py mods/TAG.py B H G S D"""
import sys

import torch
import torch.nn.functional as F

from run_one import load

if __name__ == "__main__":
    mod = load(sys.argv[1])
    b, h, g, s, d = (int(x) for x in sys.argv[2:7])
    name = [n for n in dir(mod) if n.endswith("_PARAMS")][0][:-7]
    torch.manual_seed(0)
    q = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, g, s, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, g, s, d, device="cuda", dtype=torch.bfloat16)
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True, scale=d ** -0.5, enable_gqa=True)
    for rep in range(3):
        o = torch.full_like(q, float("nan"))
        getattr(mod, name)(q, k, v, o, scale=d ** -0.5)
        torch.cuda.synchronize()
        bad = ((o.float() - ref).abs() > 2e-2) | o.isnan()
        rows = bad.any(-1)  # [b, h, s]
        blocks = rows.view(b, h, s // 64 if s % 64 == 0 else -1, 64).any(-1).nonzero() if s % 64 == 0 else rows.nonzero()
        print(sys.argv[1], rep, "bad rows", int(rows.sum()), "of", b * h * s, "first bad (b,h,block64):",
              blocks[:8].tolist(), flush=True)
