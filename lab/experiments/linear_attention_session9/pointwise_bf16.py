"""fused_pointwise (examples/fused_pointwise.py) on bf16 views, 2^26 elements, against torch.compile of the
same expression (issue 16: ">= 1.0x torch.compile"). --emit DIR writes tessel's Triton module (here, with
the compiler); --sources DIR times it (on the GPU machine).
"""
import argparse
import importlib.util
import json
import pathlib
import sys

N = 1 << 26


def kernel():
    import tessel
    import tessel.language as T

    @tessel.kernel(name="fused_pointwise_bf16")
    def fused_pointwise_bf16(x: T.In[T.bf16, ("N",)], y: T.In[T.bf16, ("N",)], z: T.Out[T.bf16, ("N",)], alpha: T.f32):
        n = T.domain(0, x.shape[0])
        xf, yv = T.cast(x[n], T.f32), T.cast(y[n], T.f32)
        z[n] = T.cast(T.sigmoid(xf) * T.tanh(yv) + alpha * T.where(xf > yv, xf, yv) - T.sqrt(T.abs(yv)), T.bf16)
    return fused_pointwise_bf16


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--emit")
    p.add_argument("--sources")
    p.add_argument("--out")
    a = p.parse_args()
    if a.emit:
        k = kernel()
        out = pathlib.Path(a.emit)
        out.mkdir(parents=True, exist_ok=True)
        (out / "fused_pointwise_bf16.py").write_text(k.source("triton", {}, {}))
        return
    import torch
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "bench"))
    from run_bench import timed
    spec = importlib.util.spec_from_file_location("_fp", pathlib.Path(a.sources) / "fused_pointwise_bf16.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch.manual_seed(0)
    x = (torch.randn(N, device="cuda") * 2).to(torch.bfloat16)
    y = (torch.randn(N, device="cuda") * 2).to(torch.bfloat16)
    z = torch.empty(N, dtype=torch.bfloat16, device="cuda")
    alpha = 0.75

    def expr(x, y):
        xf, yf = x.float(), y.float()
        return (torch.sigmoid(xf) * torch.tanh(yf) + alpha * torch.maximum(xf, yf) - torch.sqrt(yf.abs())).to(torch.bfloat16)
    want = expr(x, y)
    mod.fused_pointwise_bf16(x, y, z, alpha=alpha)
    row = {"N": N, "dtype": "bf16", "tessel_max_abs_err": (z.float() - want.float()).abs().max().item()}
    row["tessel_ms"] = timed(lambda: mod.fused_pointwise_bf16(x, y, z, alpha=alpha))
    compiled = torch.compile(expr)
    compiled(x, y)
    row["torch_compile_ms"] = timed(lambda: compiled(x, y))
    row["vs_torch_compile"] = row["torch_compile_ms"] / row["tessel_ms"]
    row["bytes_moved_GB_per_s"] = 3 * N * 2 / row["tessel_ms"] / 1e6
    print(json.dumps(row), flush=True)
    if a.out:
        pathlib.Path(a.out).write_text(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()
