"""Compile gluon_fa_ws.fa_fwd_ws for sm_90 here: python3 compile_ws.py [BN STAGES CAUSAL PACK REGS MAXNREG]."""
import sys
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon import language as gl
import gluon_fa_ws


def main():
    bn, st, causal, pack, regs, maxnreg, hm, pp, one = (int(x) for x in (sys.argv[1:] or [128, 2, 1, 1, 240, 168, 1, 1, 0]))
    bm = 16 * one if one else 128
    pm = bm // pack
    box = min(pm, bm if one else 64)
    lay = lambda r: gl.NVMMASharedLayout.get_default_for([r, 128], gl.bfloat16)
    d = lambda r: f"tensordesc<bf16[{r}, 128],{lay(r)!r}>"
    sig = {"q_desc": d(pm), "k_desc": d(bn), "v_desc": d(bn), "o_desc": d(box), "qk_scale": "fp32", "H": "i32",
           "HKV": "i32", "S": "i32", "T": "i32"}
    consts = {"CAUSAL": bool(causal), "BLOCK_N": bn, "HEAD_D": 128, "STAGES": st, "LPT": True, "PACK": pack,
              "CONSUMER_REGS": regs, "HEAD_MAJOR": bool(hm), "PINGPONG": bool(pp), "SECTION": 16, "ONE": bool(one), "num_warps": one if one else 4}
    for k in consts:
        sig[k] = "constexpr"
    src = GluonASTSource(fn=gluon_fa_ws.fa_fwd_ws, signature=sig, constexprs=consts)
    c = triton.compile(src, target=GPUTarget("cuda", 90, 64), options={"num_warps": one if one else 4, "maxnreg": maxnreg})
    print("shared", c.metadata.shared)
    open("ws.ttgir", "w").write(c.asm["ttgir"]); open("ws.ptx", "w").write(c.asm["ptx"])


if __name__ == "__main__":
    main()
