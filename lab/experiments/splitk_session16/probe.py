"""Session 16 split-K probe: the hand edits of variants.py beside cuBLAS, and where a call's host time goes.

    python3 probe.py DIR [OUT_JSON]     (DIR: modules of bench/splitk_gemm.py gen and variants.py)

Every module is checked against an f64 product first (C poisoned with NaN, two calls); `*_nosum`
modules leave C unwritten by design and are timed unchecked (a bound: main loop and partial store).
"""
import importlib.util
import json
import pathlib
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "bench"))
from run_bench import host_us, kernel_ms, steady, timed  # noqa: E402

M, N, K = 512, 512, 65536


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def per_call_us(fn, reps=2000):
    fn()
    started = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - started) / reps * 1e6


def host_parts(module, a, b, c):
    """Host microseconds of the planned call's pieces (no synchronization). `call` and `go` launch 2,000 kernels
    back to back: once the launch queue fills they measure the device time per call, not the host's."""
    plans = module._splitk_gemm_bf16_plans
    go = next(iter(plans.values()))[0]
    cells = dict(zip(go.__code__.co_freevars, (x.cell_contents for x in go.__closure__)))
    out = {}
    dev = a.get_device()
    out["call"] = per_call_us(lambda: module.splitk_gemm_bf16(a, b, c))
    out["go"] = per_call_us(lambda: go(a, a.data_ptr(), b, b.data_ptr(), c, c.data_ptr()))
    out["key"] = per_call_us(lambda: (type(a), a.dtype, a.shape, a.stride(), a.get_device(), a.data_ptr() & 15,
                                      type(b), b.dtype, b.shape, b.stride(), b.get_device(), b.data_ptr() & 15,
                                      type(c), c.dtype, c.shape, c.stride(), c.get_device(), c.data_ptr() & 15))
    out["stream"] = per_call_us(lambda: cells["_stream"](dev))
    out["empty_1MiB"] = per_call_us(lambda: torch.empty(1 << 18, dtype=torch.float32, device=a.device))
    out["a.device"] = per_call_us(lambda: a.device)
    out["capturing"] = per_call_us(lambda: torch.cuda.is_current_stream_capturing())
    torch.cuda.synchronize()
    return out


def main():
    d = pathlib.Path(sys.argv[1])
    torch.manual_seed(0)

    def nonzero(*shape):
        x = torch.rand(*shape, device="cuda") * 0.75 + 0.25
        return (x * torch.where(torch.rand(*shape, device="cuda") < 0.5, -1.0, 1.0)).to(torch.bfloat16)

    a, b = nonzero(M, K), nonzero(K, N)
    want = a.double() @ b.double()
    scale = want.abs().max().item()
    doc = {"device": torch.cuda.get_device_name(), "case": [M, N, K], "modules": {}}
    mm = lambda: torch.matmul(a, b)  # noqa: E731
    doc["cublas"] = {"ms": timed(mm, reps=50, warmup=5), "steady_ms": steady(mm), "kernel_ms": kernel_ms(mm),
                     "host_us": host_us(mm)}
    print("cublas", doc["cublas"], flush=True)
    for path in sorted(d.glob("*.py")):
        e = {}
        try:
            module = load(path)
            call = module.splitk_gemm_bf16
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
            errs = []
            for _ in range(2):
                c.fill_(float("nan"))
                call(a, b, c)
                torch.cuda.synchronize()
                errs.append(((c.double() - want).abs().max() / scale).item())
            e["errs"] = errs
            if all(x < 1e-4 for x in errs) or path.stem.endswith("_nosum"):
                f = lambda: call(a, b, c)  # noqa: E731
                e.update(ms=timed(f, reps=50, warmup=5), steady_ms=steady(f), kernel_ms=kernel_ms(f), host_us=host_us(f))
                e["vs_cublas"] = doc["cublas"]["ms"] / e["ms"]
                if path.stem == "splitk_gemm_bf16_s8":
                    e["host_parts_us"] = host_parts(module, a, b, c)
        except Exception as ex:
            e["error"] = f"{type(ex).__name__}: {ex}"[:300]
        doc["modules"][path.stem] = e
        print(path.stem, json.dumps(e), flush=True)
    doc["cublas_again"] = {"ms": timed(mm, reps=50, warmup=5), "kernel_ms": kernel_ms(mm)}
    print("cublas again", doc["cublas_again"])
    if len(sys.argv) > 2:
        pathlib.Path(sys.argv[2]).write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
