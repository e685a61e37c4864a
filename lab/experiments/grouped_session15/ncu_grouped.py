"""ncu probe (session 15): every grouped GEMM module in DIR, one call each (DRAM bytes, L2 hit rate)."""
import pathlib, sys

import torch

from _common import load, ragged_sizes

if __name__ == "__main__":
    M, N, K, G = 32768, 4096, 4096, 64
    sizes = ragged_sizes(M, G)
    offs = torch.cumsum(sizes, 0).to(torch.int32).cuda()
    a = (torch.rand(M, K, device="cuda") + 0.25).to(torch.bfloat16)
    b = (torch.rand(G, K, N, device="cuda") + 0.25).to(torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    for path in sorted(pathlib.Path(sys.argv[1]).glob("*.py")):
        try:
            print("MODULE", path.stem, flush=True)
            load(path).grouped_gemm_bf16(a, b, offs, c)
            torch.cuda.synchronize()
        except Exception as e:
            print("FAILED", path.stem, type(e).__name__, str(e)[:200], flush=True)
