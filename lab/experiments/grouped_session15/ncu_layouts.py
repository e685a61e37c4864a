"""ncu probe (session 15): the grouped GEMM defaults module on ragged64 and equal64 layouts, one call each."""
import sys

import torch

from _common import load, ragged_sizes

if __name__ == "__main__":
    M, N, K = 32768, 4096, 4096
    ragged = ragged_sizes(M, 64)
    a = (torch.rand(M, K, device="cuda") - 0.5).to(torch.bfloat16)
    b = (torch.rand(64, K, N, device="cuda") - 0.5).to(torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    f = load(sys.argv[1]).grouped_gemm_bf16
    for name, sizes in (("ragged64", ragged), ("equal64", torch.full((64,), 512))):
        offs = torch.cumsum(sizes, 0).to(torch.int32).cuda()
        print("LAYOUT", name, flush=True)
        f(a, b, offs, c)
        torch.cuda.synchronize()
