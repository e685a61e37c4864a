"""Compile a (hand-edited) generated tessel attention module for sm_90 on this CPU machine and write
X.ttgir, X.ptx, X.cubin, X.sass next to it; print regs/stack and the SASS loop summary.
Like bench/experiments/attention_session13/comp_gen.py, plus tensor-descriptor kernel arguments
(dQ, dK, dV, dO: host descriptors, block [1, 1, 64, D]).
Usage: python3 comp_edit.py FILE.py KERNELFN NUM_WARPS NUM_STAGES G0,G1,... [D]"""
import importlib.util, os, re, subprocess, sys, triton
from triton.backends.compiler import GPUTarget

CUOBJ = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/cuobjdump")


def main():
    path, fn, warps, stages, guards = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    D = int(sys.argv[6]) if len(sys.argv) > 6 else 128
    spec = importlib.util.spec_from_file_location("gen", path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    k = getattr(m, fn)
    gv = [g == "1" for g in guards.split(",")]
    sig, consts = {}, {}
    ptr = {"arg5": "*i32", "arg6": "*i1", "arg7": "*fp32", "arg8": "*fp32", "arg9": "*fp32"}
    for a in k.arg_names:
        if a in ("Q", "K", "V", "O", "Bias"): sig[a] = "*bf16"
        elif a in ("dQ", "dK", "dV", "dO"): sig[a] = f"tensordesc<bf16[1, 1, 64, {D}]>"
        elif a in ptr: sig[a] = ptr[a]
        elif a == "scale": sig[a] = "fp32"
        elif a.endswith("stride3"): sig[a] = "constexpr"; consts[a] = 1
        elif a == "USE_TMA": sig[a] = "constexpr"; consts[a] = True
        elif re.fullmatch(r"_G\d+", a): sig[a] = "constexpr"; consts[a] = gv[int(a[2:])]
        else: sig[a] = "i32"
    attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(k.arg_names) if sig[a].startswith("*") or (sig[a] == "i32" and "stride" in a)}
    src = triton.compiler.ASTSource(fn=k, signature=sig, constexprs=consts, attrs=attrs)
    c = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": stages})
    base = path[:-3]
    open(base + ".ttgir", "w").write(c.asm["ttgir"])
    open(base + ".ptx", "w").write(c.asm["ptx"])
    open(base + ".cubin", "wb").write(c.asm["cubin"])
    sass = subprocess.run([CUOBJ, "-sass", base + ".cubin"], capture_output=True, text=True).stdout
    open(base + ".sass", "w").write(sass)
    res = subprocess.run([CUOBJ, "-res-usage", base + ".cubin"], capture_output=True, text=True).stdout
    r = re.search(r"REG:(\d+) STACK:(\d+)", res)
    print(f"{os.path.basename(path)}: ok shared {c.metadata.shared} regs {r.group(1)} stack {r.group(2)} "
          f"tensormap_create {c.asm['ttgir'].count('tensormap_create')} tma_loads {c.asm['ttgir'].count('async_tma_copy_global_to_local')}")
    here = os.path.dirname(os.path.abspath(__file__))
    print(subprocess.run([sys.executable, os.path.join(here, "sass_loops.py"), base + ".sass", "--short"], capture_output=True, text=True).stdout, end="")


if __name__ == "__main__":
    main()
