// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source | FileCheck %s --check-prefix=GLDEFAULT
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=0 | FileCheck %s --check-prefix=OFF
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=1 --param=STAGES=3 | FileCheck %s
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=1 --param=STAGES=2 | FileCheck %s --check-prefix=CAP
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=1 --param=BLOCK_S=16 | FileCheck %s --check-prefix=REFUSED
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=1 --param=BLOCK_T=128 --param=STAGES=3 | FileCheck %s --check-prefix=UNCAPPED
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=1 --param=BLOCK_D=256 --param=BLOCK_T=32 --param=STAGES=2 | FileCheck %s --check-prefix=WIDE
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=1 | FileCheck %s --check-prefix=ROT
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=1 --param=BLOCK_S=128 --param=WARPS=8 --param=STAGES=2 | FileCheck %s --check-prefix=SPLIT
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=1 | FileCheck %s --check-prefix=MASK
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=NONE
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --remarks 2>&1 | FileCheck %s --check-prefix=GEMM

// COM: Legalization declares GLUON (0/1, on by default) where the kernel has fold-source streams
// COM: (the key and value tiles of the key loops) and the serializer's Gluon emission succeeds at the
// COM: declared defaults.
// REMARK: remark: triton: declares GLUON (on by default): a warp-specialized Gluon spelling streams {{[0-9]+}} tile load(s) through TMA rings from a loader warp
// COM: On by default: the Gluon kernel runs where the views meet TMA's rules on an sm_90 device (its
// COM: warpgroup MMAs), the Triton kernel elsewhere; GLUON=0 spells the Triton kernel alone.
// GLDEFAULT: def _arch(t):
// COM: ... with its rings two tiles deep (STAGES 2: two programs a multiprocessor at 64 x 64 tiles).
// GLDEFAULT: attention_PARAMS = {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 2), {{.*}}'GLUON': ([0, 1], 1)}
// GLDEFAULT: @gluon.jit
// GLDEFAULT: _tma = not _interpreting() and _arch({{[A-Za-z]+}}) == 9 and
// OFF: attention_PARAMS = {{.*}}'GLUON': ([0, 1], 0)}
// OFF-NOT: @gluon.jit
// OFF-NOT: _gdesc(

// COM: GLUON=1: the Triton kernel stays (the fallback where the TMA switch is off), and the Gluon
// COM: consumer (the program's warps: each stream's tile a ring slot it waits for, reads with wgmma
// COM: and frees), the loader (one warp: the program's control and the streams' tile origins, a TMA copy
// COM: per tile) and the kernel that allocates the rings and splits the warps follow it.
// CHECK: def _attention_kernel(
// CHECK: @gluon.jit
// CHECK-NEXT: def _attention_consumer(
// COM: Q, read only as Q.K^T's left operand, stays in shared memory (wgmma reads it there); its copy's
// COM: barrier is invalidated once waited for (its memory is reused by later buffers).
// CHECK: tma.async_copy_global_to_shared(_desc2, {{.*}}, [[BAR:_bar[0-9]+]], [[Q:_sm[0-9]+]])
// CHECK-NEXT: mbarrier.wait([[BAR]], 0)
// CHECK-NEXT: mbarrier.invalidate([[BAR]])
// CHECK-NOT: .load(_L
// CHECK: warpgroup_mma([[Q]].reshape([64, 128]),
// CHECK: mbarrier.wait(_ready0.index([[S:_s[0-9]+]]), (_n0 // 3) & 1)
// CHECK: warpgroup_mma({{.*}}, _ring0.index([[S]]).reshape([64, 128]).permute((1, 0)), {{.*}}, is_async=True)
// CHECK: mbarrier.arrive(_empty0.index([[S]]), count=1)
// CHECK-NOT: _PART *
// CHECK: @gluon.jit
// CHECK-NEXT: def _attention_loader(
// CHECK: mbarrier.wait(_empty0.index([[L:_s[0-9]+]]), ((_n0 // 3) & 1) ^ 1)
// CHECK: tma.async_copy_global_to_shared(_desc0, [{{.*}}], _ready0.index([[L]]), _ring0.index([[L]]))
// CHECK: @gluon.jit
// CHECK-NEXT: def _attention_gluon(
// CHECK: _ring0 = gl.allocate_shared_memory(gl.float16, [3, 1, 1, 64, 128], _desc0.layout)
// CHECK: mbarrier.init(_empty0.index(_i), count=1)
// CHECK: gl.warp_specialize([(_attention_consumer, ({{.*}}, 0)), (_attention_loader, ({{.*}}))], [1], [24])
// COM: The launch: the Gluon kernel where the TMA switch holds, its descriptors Gluon's; a
// COM: one-warpgroup consumer's registers capped so two programs share an SM (8 warps with the
// COM: loader's padding: 65536 / (2 * 256) = 128) where two programs' shared memory fits (STAGES = 2:
// COM: 64 KB of rings each; at 3, 96 KB, it does not).
// CHECK: _compiled = (_attention_gluon if [[ON:_a[0-9]+]] else _attention_kernel)[_grid]({{.*}}, num_warps=4, num_stages=3)
// CHECK: (_gdesc(K, [1, 1, 64, 128]) if
// CAP: _compiled = (_attention_gluon if [[ON:_a[0-9]+]] else _attention_kernel)[_grid]({{.*}}, num_warps=4, num_stages=2, maxnreg=(128 if [[ON]] else None))

// COM: Must not fire: 16-row query blocks do not tile wgmma over 4 warps; the binding says why at the
// COM: top of its Gluon part and launches the Triton kernel.
// REFUSED: # GLUON=1: no warp-specialized Gluon spelling of this binding ('pgpu.contract': warpgroup_mma over 4 warps does not tile
// REFUSED-NOT: @gluon.jit
// REFUSED-NOT: _attention_gluon

// COM: 128-key rings of two 3-slot streams (192 KB) leave no room for a second program: no cap.
// UNCAPPED: _compiled = (_attention_gluon if {{_a[0-9]+}} else _attention_kernel)[_grid]({{.*}}, num_warps=4, num_stages=3)
// UNCAPPED-NOT: maxnreg

// COM: Head size 256 at 64 x 32 tiles: two programs' rings (2 x 64 KB) would fit, but the consumer's
// COM: 64 x 256 f32 accumulator alone is 128 registers a thread (its chained product's tiles 152): capped
// COM: at 128, ptxas refuses the program (158 needed), so it stays uncapped, one program per SM.
// WIDE: _compiled = (_attention_gluon if {{_a[0-9]+}} else _attention_kernel)[_grid]({{.*}}, num_warps=4, num_stages=2)
// WIDE-NOT: maxnreg

// COM: A row kernel has no fold-source streams: no GLUON.
// NONE-NOT: GLUON

// COM: A GEMM's k loop streams its right operand but loads its left one beside it: the consumer would
// COM: wait for that copy every iteration, so no Gluon spelling is declared (Triton pipelines both).
// GEMM: remark: triton: no warp-specialized Gluon spelling: 'pgpu.load': a tile load in a streamed loop is not a stream itself
// GEMM: gemm_PARAMS =
// GEMM-NOT: GLUON

// COM: Rotation: a streamed key loop's last contraction (P.V, its result only yielded, its right
// COM: operand a ring slot) runs behind the next iteration's first (Q.K^T): the first iteration peeled
// COM: with P.V's operands captured, the loop issuing the previous P.V right after Q.K^T, waiting for
// COM: Q.K^T with one group left in flight and for P.V before its carry is read (then freeing V's
// COM: slot), the last P.V after the loop.
// ROT: # rotated: each iteration's last contraction runs behind the next one's first
// ROT-NEXT: if [[LO:v[0-9]+]] < [[HI:v[0-9]+]]:
// ROT: _dl[[N:[0-9]+]] = _c
// ROT-NEXT: _da[[N]] = v
// ROT-NEXT: _ds[[N]] = _s
// ROT: for {{v[0-9]+}} in range([[LO]] + {{v[0-9]+}}, [[HI]], {{v[0-9]+}}):
// ROT: = warpgroup_mma(_sm{{[0-9]+}}.reshape([64, 128]), _ring0.index(
// ROT-NEXT: _dr[[N]] = warpgroup_mma(_dl[[N]], _ring1.index(_ds[[N]]).reshape([64, 128]), _da[[N]], is_async=True)
// ROT-NEXT: = warpgroup_mma_wait(num_outstanding=1, deps=(
// ROT-NEXT: mbarrier.arrive(_empty0.index(
// ROT: [[ACC:v[0-9]+]], _dl[[N]] = warpgroup_mma_wait(num_outstanding=0, deps=(_dr[[N]], _dl[[N]]))
// ROT-NEXT: mbarrier.arrive(_empty1.index(_ds[[N]]), count=1)
// ROT-NEXT: = [[ACC]] *
// ROT: _dl[[N]] = _c
// ROT: pass
// ROT-NEXT: _dr[[N]] = warpgroup_mma(_dl[[N]], _ring1.index(_ds[[N]]).reshape([64, 128]), _da[[N]], is_async=True)
// ROT-NEXT: [[ACC]], _dl[[N]] = warpgroup_mma_wait(num_outstanding=0, deps=(_dr[[N]], _dl[[N]]))
// COM: The diagonal interval's loop streams its key and value tiles too (pgpu-narrow-fold-ranges bounds a
// COM: mixed interval's tail mask by the key range, the view's extent: a box) and is rotated the same way.
// COM: (gluon-scaled-values.mlir: a loop whose last contraction is read in its iteration is not.)
// ROT: # rotated: each iteration's last contraction runs behind the next one's first
// ROT-NEXT: if [[HI]] < {{v[0-9]+}}:
// ROT: for {{v[0-9]+}} in range([[HI]] + {{v[0-9]+}},
// ROT: = warpgroup_mma(_sm{{[0-9]+}}.reshape([64, 128]), _ring0.index(
// ROT-NEXT: _dr{{[0-9]+}} = warpgroup_mma(

// COM: Split rows: at 8 warps over 128-row blocks (every contraction's left operand has the rows
// COM: first, nothing combines across them) two one-warpgroup consumer partitions each run the
// COM: program on their 64 rows (a row iota and a box origin on the rows offset by the part), over the
// COM: same loops and ring slots (freed by both: empty barriers counted twice); the Gluon kernel
// COM: launches with the default partition's 4 warps, one program per SM (maxnreg 65536 / 384 = 168).
// SPLIT: def _attention_consumer({{.*}}, _PART: gl.constexpr):
// SPLIT-NEXT: # A consumer partition (4 warps): the whole program on part _PART of its 2 parts of BLOCK_S rows
// SPLIT: = gl.arange(0, 64, layout=_L{{[0-9]+}}) + v{{[0-9]+}} + _PART * 64
// SPLIT: tma.async_copy_global_to_shared(_desc2, [v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}} + _PART * 64, 0],
// SPLIT: tma.async_copy_shared_to_global(_desc3, [v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}} + _PART * 64, 0],
// SPLIT: def _attention_loader(
// SPLIT-NOT: _PART
// SPLIT: def _attention_gluon(
// SPLIT: mbarrier.init(_empty0.index(_i), count=2)
// SPLIT: gl.warp_specialize([(_attention_consumer, ({{.*}}, 0)), (_attention_consumer, ({{.*}}, 1)), (_attention_loader, ({{.*}}))], [4, 1], [240, 24])
// SPLIT: num_warps=(4 if [[ON:_a[0-9]+]] else 8), num_stages=2, maxnreg=(168 if [[ON]] else None))

// COM: A value the plan leaves automatic takes the layout most of its uses read it in: the diagonal
// COM: loop's causal mask and the key positions' tail mask, each read by the selects of the scores
// COM: (the scores' wgmma accumulator layout), are built in that layout from row and column vectors of
// COM: its slices, not built in a blocked layout and converted (through shared memory) at every select.
// MASK: def _attention_consumer(
// MASK: [[SACC:_L[0-9]+]]: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])
// MASK: [[KEYS:_L[0-9]+]]: gl.constexpr = gl.SliceLayout(0, [[SACC]])
// MASK: if {{v[0-9]+}} < [[HI:v[0-9]+]]:
// MASK: if [[HI]] < {{v[0-9]+}}:
// MASK: [[POS:v[0-9]+]] = gl.arange(0, 64, layout=[[KEYS]]) +
// MASK: [[TAIL:v[0-9]+]] = gl.broadcast({{v[0-9]+}}[None, :], gl.zeros([64, 64], gl.int1, layout=[[SACC]]))[0]
// MASK: = gl.broadcast([[POS]][None, :], gl.zeros([64, 64], gl.int32, layout=[[SACC]]))[0]
// MASK-NEXT: # attention.mlir
// MASK-NEXT: = gl.broadcast({{v[0-9]+}}[:, None], gl.zeros([64, 64], gl.int32, layout=[[SACC]]))[0]
// MASK-NEXT: # attention.mlir
// MASK-NEXT: [[CAUSAL:v[0-9]+]] = v{{[0-9]+}} <= v{{[0-9]+}}
// MASK: = gl.where([[CAUSAL]], v{{[0-9]+}}, v{{[0-9]+}})
// MASK: = gl.where([[TAIL]], v{{[0-9]+}}, v{{[0-9]+}})
