"""Host time of a planned call (issue 18): attention and split-K, one process.

On the GPU machine (CUDA available) each case is first checked against torch on random non-zero
inputs, over several calls in a row (tickets are kept zeroed across launches: a ticket left counted
would skip the next call's finalization, so every call's output is compared, into a poisoned output
view), then timed two ways:
  host_us: wall time of N planned calls enqueued back to back, no synchronization inside (the
           launches are small, so the queue does not fill), divided by N;
  call_ms: CUDA-event median per call (run_bench.timed).
On a machine without CUDA (`--stub`, the default there) the checked call runs with Triton's
launch replaced by a stub, so a plan is bound with the direct launch branch, and the planned call
is timed with the launch a no-op: the wrapper's Python alone (torch allocations are CPU ones there).

    TESSEL_BIN=<static tessel> PYTHONPATH=python:bench:examples python3 bench/launch_host.py
Prints one JSON object per case.
"""
import importlib.util
import json
import os
import pathlib
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]

# (name, kernel factory, constexprs, shapes)
CASES = [
    ("attention_f16_causal", "attention", {"CAUSAL": True}, dict(B=1, H=8, S=256, D=64)),
    ("splitk_f16_4", "splitk", {"SPLITS": 4}, dict(M=256, N=256, K=4096)),
    ("splitk_f16_4_small", "splitk", {"SPLITS": 4}, dict(M=64, N=64, K=1024)),
]


def source(kind, constexprs):
    import tessel.language as T
    if kind == "attention":
        import attention_kernels
        return attention_kernels.attention(T.f16).source(target="triton", constexprs=constexprs), "attention"
    spec = importlib.util.spec_from_file_location("splitk_gemm_example", ROOT / "examples" / "splitk_gemm.py")
    example = importlib.util.module_from_spec(spec)  # bench/splitk_gemm.py shadows the example's name
    spec.loader.exec_module(example)
    return example.splitk_gemm.source(target="triton", constexprs=constexprs), "splitk_gemm"


def load(text, name):
    path = pathlib.Path(tempfile.mkdtemp()) / f"{name}_gen.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def operands(kind, shapes, device, seed=0):
    import torch
    g = torch.Generator(device="cpu").manual_seed(seed)

    def rnd(*shape):
        return (torch.rand(*shape, generator=g) * 2 - 1 + 0.05).to(torch.float16).to(device)
    if kind == "attention":
        B, H, S, D = (shapes[k] for k in "BHSD")
        q, k, v = rnd(B, H, S, D), rnd(B, H, S, D), rnd(B, H, S, D)
        o = torch.full((B, H, S, D), float("nan"), dtype=torch.float16, device=device)
        return (q, k, v, o), {"scale": D ** -0.5}
    M, N, K = (shapes[k] for k in "MNK")
    c = torch.full((M, N), float("nan"), dtype=torch.float32, device=device)
    return (rnd(M, K), rnd(K, N), c), {}


def reference(kind, args, kwargs):
    import torch
    if kind == "attention":
        q, k, v, _ = (t.double() for t in args)
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=kwargs["scale"])
    a, b, _ = args
    return a.double() @ b.double()


def stub(module, name):
    """Triton's JIT launch and the direct launcher replaced by no-ops (the direct branch is bound)."""
    class Compiled:
        pass

    class Kernel:
        def __getitem__(self, grid):
            return lambda *a, **k: Compiled()
    module._interpreting = lambda: False
    setattr(module, f"_{name}_kernel", Kernel())
    module._direct = lambda compiled: (lambda *a: None, lambda dev: 0, None, False, False, None)
    module.torch.cuda.is_current_stream_capturing = lambda: False


def time_host(call, n=5000, repeats=15):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            call()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def main():
    import torch
    cuda = torch.cuda.is_available() and "--stub" not in sys.argv
    if not cuda:
        os.environ["TRITON_INTERPRET"] = "1"  # the views' checks accept CPU tensors
    for case, kind, constexprs, shapes in CASES:
        text, name = source(kind, constexprs)
        module = load(text, name)
        front = getattr(module, name)
        args, kwargs = operands(kind, shapes, "cuda" if cuda else "cpu")
        result = {"case": case, "shapes": shapes, "mode": "gpu" if cuda else "stub"}
        if cuda:
            want = reference(kind, args, kwargs)
            tol = 2e-2 if kind == "attention" else 1e-3 * shapes["K"] ** 0.5
            for i in range(4):  # checked, then planned calls reusing the kept tickets
                args[-1].fill_(float("nan"))
                front(*args, **kwargs)
                torch.cuda.synchronize()
                err = (args[-1].double() - want).abs().max().item()
                if not err <= tol:
                    raise SystemExit(f"{case}: call {i} max error {err} > {tol}")
            zeroed = getattr(module, "_ZEROED", {})
            if any(bool(t.any()) for t in zeroed.values()):
                raise SystemExit(f"{case}: a kept ticket buffer is not zero after the launches")
            result["max_err"] = err
            n = 200
            torch.cuda.synchronize()
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(n):
                    front(*args, **kwargs)
                best = min(best, (time.perf_counter() - t0) / n)
                torch.cuda.synchronize()
            result["host_us"] = round(best * 1e6, 2)
            import run_bench
            result["call_ms"] = run_bench.timed(lambda: front(*args, **kwargs))
        else:
            stub(module, name)
            front(*args, **kwargs)  # checked: binds the plan
            key, plan = getattr(module, f"_{name}_checked")(*args, **kwargs)
            go = plan[0]
            ptrs = [t.data_ptr() for t in args]
            goargs = [x for t, p in zip(args, ptrs) for x in (t, p)] + list(kwargs.values())
            result["planned_call_us"] = round(time_host(lambda: front(*args, **kwargs)), 2)
            result["go_us"] = round(time_host(lambda: go(*goargs)), 2)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
