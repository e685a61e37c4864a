"""Compile generated split-K modules (bench/splitk_gemm.py gen DIR) for sm_90 on a machine without a GPU
(Triton 3.6's ptxas) at the bench case's specialization (M = N = 512, K = 65536: extents and leading
strides divisible by 16, unit inner strides, USE_TMA on) and print, per module, the shared memory
Triton asks for, registers, stack (spill) bytes and ptxas' spill counts, as one JSON line each.
Writes X.ttgir, X.sass next to each module. Usage: comp_splitk.py DIR_OR_FILE... [--tma 0|1]"""
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import triton
from triton.backends.compiler import GPUTarget

CUOBJ = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/cuobjdump")
TYPES = {"a": "*bf16", "b": "*bf16", "c": "*fp32"}


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def compile_module(path, tma=True):
    m = load(path)
    kernel = next(v for k, v in vars(m).items() if k.startswith("_") and k.endswith("_kernel"))
    name = kernel.fn.__name__[1:-len("_kernel")]
    params = {k: v[1] for k, v in getattr(m, name + "_PARAMS").items()}
    sig, consts = {}, {}
    # The wrapper allocates each workspace argument: `_ws_argN = torch.empty(..., dtype=torch.float32, ...)`.
    text = path.read_text()
    workspace = {a: {"float32": "*fp32", "int32": "*i32"}[t]
                 for a, t in re.findall(r"_ws_(arg\d+) = torch\.\w+\(.*?dtype=torch\.(\w+)", text)}
    for a in kernel.arg_names:
        if a in TYPES:
            sig[a] = TYPES[a]
        elif a == "USE_TMA":
            sig[a], consts[a] = "constexpr", tma
        elif a.endswith("stride1"):
            sig[a], consts[a] = "constexpr", 1
        elif a in workspace:
            sig[a] = workspace[a]
        else:
            sig[a] = "i32"
    attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(kernel.arg_names)
             if sig[a].startswith("*") or sig[a] == "i32"}
    src = triton.compiler.ASTSource(fn=kernel, signature=sig, constexprs=consts, attrs=attrs)
    opts = {"num_warps": params["WARPS"], "num_stages": params["STAGES"]}
    entry = {"module": path.name, "binding": params}
    try:
        c = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
    except Exception as e:  # noqa: BLE001 (a binding that does not compile is a result)
        entry["error"] = f"{type(e).__name__}: {e}"[:300]
        return entry
    base = str(path)[:-3]
    open(base + ".ttgir", "w").write(c.asm["ttgir"])
    open(base + ".cubin", "wb").write(c.asm["cubin"])
    sass = subprocess.run([CUOBJ, "-sass", base + ".cubin"], capture_output=True, text=True).stdout
    open(base + ".sass", "w").write(sass)
    res = subprocess.run([CUOBJ, "-res-usage", base + ".cubin"], capture_output=True, text=True).stdout
    r = re.search(r"REG:(\d+) STACK:(\d+)", res)
    entry.update(shared=c.metadata.shared, fits=c.metadata.shared <= 232448, regs=int(r.group(1)),
                 stack=int(r.group(2)),
                 local_ldst=sum(1 for line in sass.splitlines() if re.search(r"\b(LDL|STL)\b", line)),
                 tma_store="async_tma_copy_local_to_global" in c.asm["ttgir"],
                 local_allocs=c.asm["ttgir"].count("ttg.local_alloc"))
    return entry


def main():
    tma = "--tma" not in sys.argv or sys.argv[sys.argv.index("--tma") + 1] == "1"
    paths = []
    for a in sys.argv[1:]:
        if a in ("--tma", "0", "1"):
            continue
        p = pathlib.Path(a)
        paths += sorted(p.glob("*.py")) if p.is_dir() else [p]
    for p in paths:
        print(json.dumps(compile_module(p, tma)), flush=True)


if __name__ == "__main__":
    main()
