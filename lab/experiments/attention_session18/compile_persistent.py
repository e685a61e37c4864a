"""Compile gluon_fa_persistent for sm_90 here: python3 compile_persistent.py [STAGES CAUSAL PACK]."""
import sys
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon import language as gl
import gluon_fa_persistent as P


def main():
    st, causal, pack = (int(x) for x in (sys.argv[1:] or [3, 1, 1]))
    pm = 128 // pack
    box = min(pm, 64)
    lay = lambda r: gl.NVMMASharedLayout.get_default_for([r, 128], gl.bfloat16)
    d = lambda r: f"tensordesc<bf16[{r}, 128],{lay(r)!r}>"
    sig = {"q_desc": d(pm), "k_desc": d(128), "v_desc": d(128), "o_desc": d(box), "qk_scale": "fp32", "H": "i32",
           "HKV": "i32", "S": "i32", "T": "i32", "n_items": "i32"}
    consts = {"CAUSAL": bool(causal), "BLOCK_N": 128, "HEAD_D": 128, "STAGES": st, "PACK": pack, "SECTION": 16,
              "CONSUMER_REGS": 240, "num_warps": 4}
    for k in consts:
        sig[k] = "constexpr"
    c = triton.compile(GluonASTSource(fn=P.fa_fwd_persistent, signature=sig, constexprs=consts),
                       target=GPUTarget("cuda", 90, 64), options={"num_warps": 4, "maxnreg": 168})
    print("shared", c.metadata.shared)
    open("persistent.ptx", "w").write(c.asm["ptx"])


if __name__ == "__main__":
    main()
