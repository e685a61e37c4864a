"""Probe (session 15): the grouped GEMM defaults kernel with a dynamic tile counter (each program takes the
next tile of the global order when it finishes one: partners stay close in time) against the static walk
(program p takes tiles p, p + 132, ...), ragged64 and equal64, correctness first vs torch._grouped_mm."""
import json

import torch

from _common import load, ragged_sizes, timed

if __name__ == "__main__":
    M, N, K = 32768, 4096, 4096
    ragged = ragged_sizes(M, 64)
    a = (torch.rand(M, K, device="cuda") - 0.5).to(torch.bfloat16)
    b = (torch.rand(64, K, N, device="cuda") - 0.5).to(torch.bfloat16)
    static = load("grouped/defaults.py")
    dyn = load("grouped_dyn/dyn.py")
    dyn._tma_allocator()
    ws = torch.zeros(1, dtype=torch.int32, device="cuda")
    ctr = torch.zeros(1, dtype=torch.int32, device="cuda")
    kern = dyn._grouped_gemm_bf16_kernel
    def call_dyn(offs, c):
        kern[(132, 1, 1)](a, M, K, a.stride(0), a.stride(1), b, 64, N, b.stride(0), b.stride(1), b.stride(2),
                          offs, offs.stride(0), c, c.stride(0), c.stride(1), ws, ctr, True, num_warps=8, num_stages=5)
    out = {}
    for name, sizes in (("ragged64", ragged), ("equal64", torch.full((64,), 512))):
        offs = torch.cumsum(sizes, 0).to(torch.int32).cuda()
        want = torch._grouped_mm(a, b, offs=offs, out_dtype=torch.bfloat16)
        row = {"grouped_mm_ms": timed(lambda: torch._grouped_mm(a, b, offs=offs, out_dtype=torch.bfloat16))}
        for label, fn in (("static", lambda c: static.grouped_gemm_bf16(a, b, offs, c)), ("dynamic", lambda c: call_dyn(offs, c))):
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            fn(c); torch.cuda.synchronize()
            c2 = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            fn(c2); torch.cuda.synchronize()  # a second call: the counter came back to 0
            err = max(((x.float() - want.float()).abs().max() / want.float().abs().max()).item() for x in (c, c2))
            row[label] = {"err": err, "ctr_after": int(ctr.item())}
            if err < 1e-2:
                row[label]["ms"] = timed(lambda: fn(c))
                row[label]["vs_grouped_mm"] = row["grouped_mm_ms"] / row[label]["ms"]
        out[name] = row
        print(name, json.dumps(row), flush=True)
