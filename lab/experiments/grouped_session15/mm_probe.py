"""Dense GEMM probe (session 15): the grouped GEMM's total shape as one dense bf16 GEMM (M=32768, N=K=4096),
tessel's matmul at 128x256 / 128x128 tiles with and without FLATTEN, against torch.matmul."""
import json, pathlib, sys

import torch

from _common import load, timed

if __name__ == "__main__":
    M, N, K = 32768, 4096, 4096
    a = ((torch.rand(M, K, device="cuda") + 0.25)).to(torch.bfloat16)
    b = ((torch.rand(K, N, device="cuda") - 0.5)).to(torch.bfloat16)
    want = torch.matmul(a, b)
    out = {"torch_ms": timed(lambda: torch.matmul(a, b), reps=20, warmup=3)}
    for path in sorted(pathlib.Path(sys.argv[1]).glob("mm_t*.py")):
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        try:
            f = load(path).matmul
            f(a, b, c); torch.cuda.synchronize()
            err = ((c.float() - want.float()).abs().max() / want.float().abs().max()).item()
            ms = timed(lambda: f(a, b, c), reps=20, warmup=3)
            out[path.stem] = {"err": err, "ms": ms, "TFLOPs": 2 * M * N * K / ms / 1e9, "vs_torch": out["torch_ms"] / ms}
        except Exception as e:
            out[path.stem] = {"error": f"{type(e).__name__}: {e}"[:300]}
    print(json.dumps(out, indent=1))
