"""Write tessel's generated grouped-query causal attention modules (bench/attention_kernels.gqa_attention, bf16)
for a few bindings, Triton and warp-specialized Gluon (GLUON=1), into mods/: python3 gen.py [SUFFIX [TAG...]] (CPU);
each module is written as mods/TAG[SUFFIX].py. EMPTINESS=1 in the environment compiles with summary_emptiness=True."""
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2] / "python"), str(HERE.parents[2] / "bench")]

BINDINGS = {
    "tri_64_64_s3": dict(BLOCK_S=64, BLOCK_T=64, WARPS=4, STAGES=3),
    "gl_64_64_s2": dict(BLOCK_S=64, BLOCK_T=64, WARPS=4, STAGES=2, GLUON=1),
    "gl_64_64_s3": dict(BLOCK_S=64, BLOCK_T=64, WARPS=4, STAGES=3, GLUON=1),
    "gl_64_128_s2": dict(BLOCK_S=64, BLOCK_T=128, WARPS=4, STAGES=2, GLUON=1),
    "gl_128_64_s2": dict(BLOCK_S=128, BLOCK_T=64, WARPS=8, STAGES=2, GLUON=1),
    "gl_128_128_s2": dict(BLOCK_S=128, BLOCK_T=128, WARPS=8, STAGES=2, GLUON=1),
    "gl_128_64_s3": dict(BLOCK_S=128, BLOCK_T=64, WARPS=8, STAGES=3, GLUON=1),
    "gl_128_64_s4": dict(BLOCK_S=128, BLOCK_T=64, WARPS=8, STAGES=4, GLUON=1),
    "gl_128_128_s3": dict(BLOCK_S=128, BLOCK_T=128, WARPS=8, STAGES=3, GLUON=1),
}

if __name__ == "__main__":
    import attention_kernels as ak
    from tessel import language as T
    kernel = ak.gqa_attention(T.bf16, **({"summary_emptiness": True} if os.environ.get("EMPTINESS") else {}))
    out = HERE / "mods"
    out.mkdir(exist_ok=True)
    suffix, tags = (sys.argv[1] if len(sys.argv) > 1 else ""), sys.argv[2:] or list(BINDINGS)
    for tag in tags:
        (out / f"{tag}{suffix}.py").write_text(kernel.source(params=dict(BINDINGS[tag], BLOCK_D=128)))
        print(tag, "written")
