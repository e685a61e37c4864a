"""Batched GEMV B=64 M=1027 K=1024 f16 on the GPU: examples/batched_gemv.py loop spelling compiled before (c1662cc^)
and after pgpu-flatten-worksets, and the batched-contract spelling, each generated here into scratch/gemv/ with
`Kernel.source("triton")` (TESSEL_BIN picks the compiler), loaded side by side in one process, checked, timed."""
import importlib.util, json, statistics, sys, torch
def load(p, name):
    s = importlib.util.spec_from_file_location(p.replace('/', '_').replace('.', '_'), p); m = importlib.util.module_from_spec(s); s.loader.exec_module(m); return getattr(m, name)
def timed(fn, reps=50):
    for _ in range(5): fn()
    torch.cuda.synchronize(); ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b))
    return statistics.median(ts)
if __name__ == "__main__":
    B, M, K = 64, 1027, 1024
    a = (torch.rand(B, M, K, device="cuda") - 0.5).half(); x = (torch.rand(B, K, device="cuda") - 0.5).half()
    want = torch.einsum("bmk,bk->bm", a.float(), x.float())
    res = {}
    for key, path, name in [("loop_before", "scratch/gemv/loop_before.py", "batched_gemv"), ("loop_after", "scratch/gemv/loop.py", "batched_gemv"),
                            ("contract", "scratch/gemv/contract.py", "batched_gemv_contract")]:
        f = load(path, name); y = torch.full((B, M), float("nan"), device="cuda"); f(a, x, y); torch.cuda.synchronize()
        err = (y - want).abs().max().item(); res[key + "_err"] = err
        if err < 1e-2: res[key + "_ms"] = timed(lambda: f(a, x, y))
    res["torch_bmm_ms"] = timed(lambda: torch.bmm(a, x.unsqueeze(-1)))
    print(json.dumps(res))
    json.dump({"shape": [B, M, K], "dtype": "f16", **res}, open(sys.argv[1], "w"), indent=1)
