"""Device: one small grouped-query call of a module (for compute-sanitizer): python3 san.py mods/TAG.py B H G S D"""
import sys

import torch

from run_one import load

if __name__ == "__main__":
    mod = load(sys.argv[1])
    b, h, g, s, d = (int(x) for x in sys.argv[2:7])
    q = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, g, s, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, g, s, d, device="cuda", dtype=torch.bfloat16)
    o = torch.empty_like(q)
    mod.gqa_attention(q, k, v, o, scale=d ** -0.5)
    torch.cuda.synchronize()
    print("ok", o.float().abs().max().item())
