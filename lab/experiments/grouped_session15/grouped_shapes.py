"""Grouped GEMM probe (session 15): the same generated modules at three group layouts of M = 32768 rows,
N = K = 4096, against torch._grouped_mm: ragged 64 groups (the bench's), 64 equal groups of 512, 8 equal
groups of 4096 (each B strip shared by 32 row tiles). Correctness first against torch._grouped_mm."""
import json, pathlib, sys

import torch

from _common import load, ragged_sizes, timed

if __name__ == "__main__":
    d = pathlib.Path(sys.argv[1])
    M, N, K = 32768, 4096, 4096
    ragged = ragged_sizes(M, 64)
    shifted = torch.full((64,), 512); shifted[0] -= 64; shifted[-1] += 64
    rounded = (ragged + 64) // 128 * 128; rounded[-1] += M - rounded.sum()
    layouts = {"ragged64": ragged, "equal64": torch.full((64,), 512), "equal64_shifted64": shifted,
               "ragged64_rounded128": rounded}
    if len(sys.argv) > 3:
        layouts = {k: v for k, v in layouts.items() if k in sys.argv[3].split(",")}
    a = (torch.rand(M, K, device="cuda") - 0.5).to(torch.bfloat16)
    out = {}
    mods = {p.stem: load(p).grouped_gemm_bf16 for p in sorted(d.glob("*.py")) if p.stem in sys.argv[2].split(",")}
    for name, sizes in layouts.items():
        G = len(sizes)
        offs = torch.cumsum(sizes, 0).to(torch.int32).cuda()
        b = (torch.rand(G, K, N, device="cuda") - 0.5).to(torch.bfloat16)
        want = torch._grouped_mm(a, b, offs=offs, out_dtype=torch.bfloat16)
        row = {"grouped_mm_ms": timed(lambda: torch._grouped_mm(a, b, offs=offs, out_dtype=torch.bfloat16))}
        for m, f in mods.items():
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            f(a, b, offs, c); torch.cuda.synchronize()
            err = ((c.float() - want.float()).abs().max() / want.float().abs().max()).item()
            row[m] = {"err": err}
            if err < 1e-2:
                row[m]["ms"] = timed(lambda: f(a, b, offs, c))
                row[m]["vs_grouped_mm"] = row["grouped_mm_ms"] / row[m]["ms"]
                row[m]["TFLOPs"] = 2 * M * N * K / row[m]["ms"] / 1e9
        out[name] = row
        del b
        print(name, json.dumps(row), flush=True)
    print(json.dumps(out, indent=1))
