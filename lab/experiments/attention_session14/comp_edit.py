"""Compile a (hand-edited) generated tessel attention module for sm_90 on this CPU machine and write
X.ttgir, X.ptx, X.cubin, X.sass next to it; print regs/stack and the SASS loop summary.
Like lab/experiments/attention_session13/comp_gen.py, plus tensor-descriptor kernel arguments
(dQ, dK, dV, dO: host descriptors, block [1, 1, 64, D]).
Usage: python3 comp_edit.py FILE.py KERNELFN NUM_WARPS NUM_STAGES G0,G1,... [D]"""
import os, re, subprocess, sys, triton
from triton.backends.compiler import GPUTarget

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "attention_session13"))
import comp_gen  # noqa: E402  (the kernel's argument signature)

CUOBJ = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/cuobjdump")


def main():
    path, fn, warps, stages, guards = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    D = int(sys.argv[6]) if len(sys.argv) > 6 else 128
    k = comp_gen.load_kernel(path, fn)
    sig, consts, attrs = comp_gen.signature(k, guards, descriptor_d=D)
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
