"""Compile a generated (or edited) grouped-GEMM kernel for sm_90 on a CPU-only machine (Triton's own
ptxas): python3 comp_grouped.py FILE.py WARPS STAGES -> shared bytes, registers, spills; writes .ttgir."""
import importlib.util, sys, triton
from triton.backends.compiler import GPUTarget


def main():
    path, warps, stages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    spec = importlib.util.spec_from_file_location("gen", path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    k = m._grouped_gemm_bf16_kernel
    ptrs = {"a": "*bf16", "b": "*bf16", "c": "*bf16", "offs": "*i32", "arg4": "*i32"}
    unit = ("a_stride1", "b_stride2", "c_stride1", "offs_stride0")  # Triton specializes a stride of 1
    sig = {a: ("constexpr" if a in unit else ptrs.get(a, "i32")) for a in k.arg_names}
    attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(k.arg_names)
             if a in ptrs or (a.endswith(("stride0", "stride1")) and a != "offs_stride0") or a.startswith("_extent_")}
    src = triton.compiler.ASTSource(fn=k, signature=sig, constexprs={a: 1 for a in unit}, attrs=attrs)
    c = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": stages})
    open(path[:-3] + ".ttgir", "w").write(c.asm["ttgir"])
    t = c.asm["ttgir"]
    print(path, "shared", c.metadata.shared, "tma", t.count("async_tma_copy_global_to_local"),
          "cp.async", t.count("async_copy_global_to_local"), "wgmma", t.count("warp_group_dot "))


if __name__ == "__main__":
    main()
