"""Session 17 split-K probe: every module of a folder beside cuBLAS, in one process.

    python3 probe.py DIR OUT_JSON [--only SUBSTR]

Modules named *_ws.py are left out unless --only selects them (run those one per process under a timeout:
Triton's Hopper warp specialization may hang). Every module is checked against an f64 product first (C
poisoned with NaN, two calls) except the bounds (*_nosum, *_red, *_ticket), which leave C wrong by design and
are timed unchecked. `--ptx`: print each module's atomic instructions (the merge's spelling in PTX).
"""
import importlib.util
import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "bench"))
from run_bench import host_us, kernel_ms, steady, timed  # noqa: E402

M, N, K = 512, 512, 65536
BOUNDS = ("_nosum", "_red", "_ticket", "_nozero")  # hand edits that leave C wrong by design (variants.py): timed unchecked


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    d, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    torch.manual_seed(0)

    def nonzero(*shape):
        x = torch.rand(*shape, device="cuda") * 0.75 + 0.25
        return (x * torch.where(torch.rand(*shape, device="cuda") < 0.5, -1.0, 1.0)).to(torch.bfloat16)

    a, b = nonzero(M, K), nonzero(K, N)
    want = a.double() @ b.double()
    scale = want.abs().max().item()
    doc = json.loads(out.read_text()) if out.exists() else {"device": torch.cuda.get_device_name(),
                                                            "case": [M, N, K], "modules": {}}
    mm = lambda: torch.matmul(a, b)  # noqa: E731
    doc.setdefault("cublas", []).append({"ms": timed(mm, reps=50, warmup=5), "steady_ms": steady(mm),
                                         "kernel_ms": kernel_ms(mm), "host_us": host_us(mm)})
    print("cublas", doc["cublas"][-1], flush=True)
    for path in sorted(d.glob("*.py")):
        if (only and only not in path.stem) or (not only and path.stem.endswith("_ws")):
            continue
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
            if all(x < 1e-4 for x in errs) or path.stem.endswith(BOUNDS):
                f = lambda: call(a, b, c)  # noqa: E731
                e.update(ms=timed(f, reps=50, warmup=5), steady_ms=steady(f), kernel_ms=kernel_ms(f),
                         host_us=host_us(f))
                e["vs_cublas"] = doc["cublas"][-1]["ms"] / e["ms"]
            if "--ptx" in sys.argv:
                import collections
                kern = getattr(module, "_splitk_gemm_bf16_kernel")
                ptx = next(iter(kern.device_caches[0][0].values())).asm["ptx"]
                ops = [ln.split() for ln in ptx.splitlines() if "red." in ln or "atom." in ln]
                e["ptx_atomics"] = dict(collections.Counter(t[1] if t[0].startswith("@") else t[0]
                                                            for t in ops if t))
        except Exception as ex:
            e["error"] = f"{type(ex).__name__}: {ex}"[:300]
        doc["modules"][path.stem] = e
        print(path.stem, json.dumps(e), flush=True)
        out.write_text(json.dumps(doc, indent=1))
    mm_again = {"ms": timed(mm, reps=50, warmup=5), "kernel_ms": kernel_ms(mm)}
    doc["cublas"].append(mm_again)
    print("cublas again", mm_again)
    out.write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
