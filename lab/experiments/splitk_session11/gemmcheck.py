"""examples/gemm.py (f16, f32 C, no bias) at 4096^3, STAGES 3 against 4 at its 128x128 defaults, with
cuBLAS (torch.matmul, f16) beside: does deepening the pipeline help the plain GEMM as it helps split-K?"""
import importlib.util, json, pathlib, sys
import torch
from run_bench import kernel_ms, timed
from splitk_gemm import steady

def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m

torch.manual_seed(1)
M = N = K = 4096
def nz(*s):
    x = torch.rand(*s, device="cuda") * 0.75 + 0.25
    return (x * torch.where(torch.rand(*s, device="cuda") < 0.5, -1.0, 1.0)).half()
a, b = nz(M, K), nz(K, N)
bias = torch.zeros(N, device="cuda")
want = a.float() @ b.float()
doc = {"case": "examples/gemm.py f16 4096^3 (f32 C)", "cublas_f16_ms": timed(lambda: torch.matmul(a, b), reps=30),
       "cublas_f16_kernel_ms": kernel_ms(lambda: torch.matmul(a, b)), "bindings": []}
for st in (3, 4):
    m = load(pathlib.Path(sys.argv[1]) / f"gemm_st{st}.py")
    c = torch.full((M, N), float("nan"), device="cuda")
    m.gemm(a, b, bias, c)
    torch.cuda.synchronize()
    err = ((c - want).abs().max() / want.abs().max()).item()
    e = {"STAGES": st, "max_rel_err": err}
    if err < 1e-3:
        e["ms"] = timed(lambda: m.gemm(a, b, bias, c), reps=30)
        e["steady_ms"] = steady(lambda: m.gemm(a, b, bias, c))
        e["kernel_ms"] = kernel_ms(lambda: m.gemm(a, b, bias, c))
        e["vs_cublas_kernel"] = doc["cublas_f16_kernel_ms"] / e["kernel_ms"]
    doc["bindings"].append(e)
    print(json.dumps(e), flush=True)
print(json.dumps(doc))
pathlib.Path(sys.argv[2]).write_text(json.dumps(doc, indent=1) + "\n")
