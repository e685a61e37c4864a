"""tessel's generated grouped-query attention kernel's all-true-interval key loop (`v124`, Triton source of
`bench/attention_kernels.gqa_attention`, session 17) spelled in Gluon by hand the way a generator would:
tl.X -> gl.X, broadcast_to -> broadcast against a zero of the target shape, each tl.dot -> warpgroup_mma
with the key/value box from a TMA ring slot (4-d box reshaped, K transposed as a view). Concrete layouts
only where Gluon 3.6 needs them: the loop carries, the contracts' accumulators, the query load anchored
in the first contract's dot-operand layout (set_auto_layout), the probabilities converted to the second's,
and one conversion where the row vector of the scores' layout meets the output accumulator's. Everything
else is AutoLayout. Compiles for sm_90 on a CPU-only machine: python3 tessel_body_gluon.py -> "ok <shared>"."""
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon.language.nvidia.hopper import tma, mbarrier, fence_async_shared, warpgroup_mma, warpgroup_mma_wait

@gluon.jit
def _combine_max(a, b):
    return gl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)

@gluon.jit
def _combine_add(a, b):
    return a + b

@gluon.jit
def body(Q, k_desc, v_desc, O, scale, v43, v42, v117, v119, v76, num_warps: gl.constexpr):
    MS: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, 64, 16])
    MO: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, 128, 16])
    RS: gl.constexpr = gl.SliceLayout(1, MS)
    A0: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=MS, k_width=2)
    A1: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=MO, k_width=2)
    ring_k = gl.allocate_shared_memory(gl.bfloat16, [2, 1, 1, 64, 128], k_desc.layout)
    ring_v = gl.allocate_shared_memory(gl.bfloat16, [2, 1, 1, 64, 128], v_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    mbarrier.init(bar.index(0), count=1)
    mbarrier.init(bar.index(1), count=1)
    v61 = gl.arange(0, 64)
    v67 = gl.arange(0, 128) + 0
    v68 = gl.broadcast(v61[:, None], gl.zeros([64, 128], gl.int32))[0] >= 0
    v69 = gl.broadcast(v61[:, None], gl.zeros([64, 128], gl.int32))[0]
    v70 = gl.broadcast(v67[None, :], gl.zeros([64, 128], gl.int32))[0]
    v71 = gl.load(Q + v69 * 128 + v70, mask=v68, other=gl.full([], 0.0, gl.bfloat16))
    v71 = gl.set_auto_layout(v71, A0)
    v120 = gl.full([64], 0, gl.int1, layout=RS) | gl.full([], 0, gl.int1)
    v73 = gl.zeros([64], gl.float32, layout=RS) + gl.full([], 0.0, gl.float32)
    v121 = v73
    v122 = v73
    v123 = gl.zeros([64, 128], gl.float32, layout=MO)
    ph = 0
    for v124 in range(v117, v119, v76):
        mbarrier.expect(bar.index(0), k_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(k_desc, [v43, v42 // 4, v124, 0], bar.index(0), ring_k.index(0))
        mbarrier.expect(bar.index(1), v_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(v_desc, [v43, v42 // 4, v124, 0], bar.index(1), ring_v.index(0))
        mbarrier.wait(bar.index(0), ph)
        v127 = gl.full([64], 0, gl.int1) | gl.full([], 1, gl.int1)
        v133 = ring_k.index(0).reshape([64, 128]).permute((1, 0))
        v134 = gl.zeros([64, 64], gl.float32, layout=MS) + gl.full([], 0.0, gl.float32)
        v135 = warpgroup_mma(v71, v133, v134)
        v137 = scale * gl.full([], 1.4426950216293335e+00, gl.float32)
        v138 = gl.zeros([64, 64], gl.float32) + v137
        v139 = v135 * v138
        v144 = gl.reduce(v139, 1, _combine_max)
        v147 = v120 | v127
        v148 = gl.maximum(v121, v144, propagate_nan=tl.PropagateNan.ALL)
        v149 = gl.where(v120, v148, v144)
        v150 = gl.where(v127, v149, v121)
        v151 = v121 - v150
        v152 = gl.exp2(v151)
        v153 = gl.where(v120, v152, v73)
        v154 = v122 * v153
        v155 = gl.broadcast(v150[:, None], gl.zeros([64, 64], gl.float32))[0]
        v156 = v139 - v155
        v157 = gl.exp2(v156)
        v162 = gl.reduce(v157, 1, _combine_add)
        v163 = gl.cast(v157, gl.bfloat16)
        v164 = v154 + v162
        v165 = gl.broadcast(gl.convert_layout(v153, gl.SliceLayout(1, MO))[:, None], gl.zeros([64, 128], gl.float32))[0]
        v166 = v123 * v165
        mbarrier.wait(bar.index(1), ph)
        v167 = warpgroup_mma(gl.convert_layout(v163, A1), ring_v.index(0).reshape([64, 128]), v166)
        ph ^= 1
        v120 = v147
        v121 = v150
        v122 = v164
        v123 = v167
    out = v123 / gl.convert_layout(v122, gl.SliceLayout(1, MO))[:, None]
    r = gl.arange(0, 64)
    c = gl.arange(0, 128)
    gl.store(O + r[:, None] * 128 + c[None, :], gl.cast(out, gl.bfloat16))

l4 = gl.NVMMASharedLayout.get_default_for([1, 1, 64, 128], gl.bfloat16)
sig = {"Q": "*bf16", "k_desc": f"tensordesc<bf16[1, 1, 64, 128],{l4!r}>", "v_desc": f"tensordesc<bf16[1, 1, 64, 128],{l4!r}>",
       "O": "*bf16", "scale": "fp32", "v43": "i32", "v42": "i32", "v117": "i32", "v119": "i32", "v76": "i32", "num_warps": "constexpr"}
if __name__ == "__main__":
    c = triton.compile(GluonASTSource(fn=body, signature=sig, constexprs={"num_warps": 4}), target=GPUTarget("cuda", 90, 64),
                       options={"num_warps": 4})
    print("ok", c.metadata.shared)
