"""Compile gluon_fa.fa_fwd for sm_90 on a CPU-only machine: python3 compile_cpu.py [BM BN STAGES WARPS CAUSAL]."""
import sys
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon import language as gl
import gluon_fa


def main():
    bm, bn, st, w, causal, pack = (int(x) for x in (sys.argv[1:] or [128, 128, 2, 8, 1, 1]))
    pm = bm // pack
    ql, kl = gluon_fa.layouts(gl.bfloat16, pm, bn, 128)
    d = lambda shape, lay: f"tensordesc<bf16[{shape[0]}, {shape[1]}],{lay!r}>"
    sig = {"q_desc": d([pm, 128], ql), "k_desc": d([bn, 128], kl), "v_desc": d([bn, 128], kl),
           "o_desc": d([pm, 128], ql), "qk_scale": "fp32", "H": "i32", "HKV": "i32", "S": "i32", "T": "i32",
           "CAUSAL": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "HEAD_D": "constexpr",
           "STAGES": "constexpr", "LPT": "constexpr", "PACK": "constexpr", "HEAD_MAJOR": "constexpr", "num_warps": "constexpr"}
    consts = {"CAUSAL": bool(causal), "BLOCK_M": bm, "BLOCK_N": bn, "HEAD_D": 128, "STAGES": st, "LPT": True, "PACK": pack, "HEAD_MAJOR": True, "num_warps": w}
    src = GluonASTSource(fn=gluon_fa.fa_fwd, signature=sig, constexprs=consts)
    c = triton.compile(src, target=GPUTarget("cuda", 90, 64), options={"num_warps": w})
    print("shared", c.metadata.shared, "regs", getattr(c, "n_regs", "?"), "spills", getattr(c, "n_spills", "?"))
    open("fa.ttgir", "w").write(c.asm["ttgir"]); open("fa.ptx", "w").write(c.asm["ptx"])
    open("fa.cubin", "wb").write(c.asm["cubin"])


if __name__ == "__main__":
    main()
