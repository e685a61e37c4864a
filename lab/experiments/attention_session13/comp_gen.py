"""Compile a generated tessel attention kernel for sm_90 on this CPU machine (Triton's ptxas):
python3 comp_gen.py FILE.py KERNELFN NUM_WARPS NUM_STAGES G0,G1,...  -> shared bytes, spills."""
import importlib.util, os, re, sys, triton
from triton.backends.compiler import GPUTarget


def load_kernel(path, fn):
    """The JIT function `fn` of the module at `path`."""
    spec = importlib.util.spec_from_file_location("gen", path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    return getattr(m, fn)


def signature(k, guards, descriptor_d=None):
    """(signature, constexprs, attrs) of a generated attention kernel's arguments for triton.compile: bf16
    views, the last stride 1, USE_TMA on, the guards `_G<i>` from "0,1,...". With `descriptor_d`, the
    hand edits' host descriptor arguments dQ, dK, dV, dO ([1, 1, 64, D] bf16 boxes) too."""
    gv = [g == "1" for g in guards.split(",")]
    sig, consts = {}, {}
    ptr = {"arg5": "*i32", "arg6": "*i1", "arg7": "*fp32", "arg8": "*fp32", "arg9": "*fp32"}
    for a in k.arg_names:
        if a in ("Q", "K", "V", "O", "Bias"): sig[a] = "*bf16"
        elif descriptor_d and a in ("dQ", "dK", "dV", "dO"): sig[a] = f"tensordesc<bf16[1, 1, 64, {descriptor_d}]>"
        elif a in ptr: sig[a] = ptr[a]
        elif a == "scale": sig[a] = "fp32"
        elif a.endswith("stride3"): sig[a] = "constexpr"; consts[a] = 1
        elif a == "USE_TMA": sig[a] = "constexpr"; consts[a] = True
        elif re.fullmatch(r"_G\d+", a): sig[a] = "constexpr"; consts[a] = gv[int(a[2:])]
        else: sig[a] = "i32"
    attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(k.arg_names) if sig[a].startswith("*") or (sig[a] == "i32" and "stride" in a)}
    return sig, consts, attrs


def main():
    path, fn, warps, stages, guards = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    k = load_kernel(path, fn)
    sig, consts, attrs = signature(k, guards)
    src = triton.compiler.ASTSource(fn=k, signature=sig, constexprs=consts, attrs=attrs)
    c = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": stages})
    ptx = c.asm["ptx"]
    open(path[:-3] + ".ttgir", "w").write(c.asm["ttgir"])
    print("ok shared", c.metadata.shared, "tma loads", c.asm["ttgir"].count("async_tma_copy_global_to_local"), "regs", c.n_regs if hasattr(c, "n_regs") else "?", "spills", getattr(c, "n_spills", "?"))
    open(path[:-3] + ".cubin", "wb").write(c.asm["cubin"])


if __name__ == "__main__":
    main()
