// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/bias_attention.py:bias_rows --target=triton --emit=source --remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/bias_attention.py:bias_rows --target=triton --emit=source | FileCheck %s --check-prefix=DEFAULT
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/bias_attention.py:bias_rows --target=triton --emit=source --param=GLUON=1 | FileCheck %s
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/bias_attention.py:bf16_bias_rows --target=triton --emit=source --param=GLUON=1 | FileCheck %s --check-prefix=BF16

// COM: Attention with an additive bias tile (corpus 199's spelling): the key loops stream K and V, and read
// COM: a [BLOCK_S, BLOCK_T] f32 bias tile beside them that no contraction reads. Before: no Gluon
// COM: spelling ("a tile load in a streamed loop is not a stream itself"). After: GLUON is declared, off by
// COM: default (the consumers read the bias with pointers, unpipelined, against the Triton spelling's
// COM: pipelined load: unmeasured), and STAGES keeps the Triton spelling's depth. (The must-not-fire case,
// COM: a GEMM's left operand beside its streamed right one, is gluon.mlir's GEMM.)
// REMARK: remark: triton: declares GLUON (off by default): a warp-specialized Gluon spelling streams {{[0-9]+}} tile load(s) through TMA rings from a loader warp and reads this tile with pointers in the consumers
// DEFAULT: bias_rows_PARAMS = {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 3), {{.*}}'GLUON': ([0, 1], 0)}

// COM: GLUON=1: in the consumer's key loop, the bias tile is a pointer load in the scores' (accumulator)
// COM: layout after the streamed K slot's product, no TMA copy of its own.
// CHECK: def _bias_rows_consumer(
// CHECK: for [[T:v[0-9]+]] in range(
// CHECK: mbarrier.wait(_ready0.index(
// CHECK: warpgroup_mma(
// CHECK: mbarrier.arrive(_empty0.index(
// CHECK: = gl.load(bias + {{.*}}, mask={{.*}}, other=gl.full([], 0.000000e+00, gl.float32))

// COM: A bf16 bias tile, which a TMA box could describe, is read with pointers in the key loops too (a copy
// COM: there would be waited for every iteration); the straight-line path of a row that fits one key tile
// COM: (pgpu-stage-folds) copies its one tile with TMA, as it does q's.
// BF16: # _desc{{[0-9]+}}: bias's
// BF16: def _bf16_bias_rows_consumer(
// BF16: tma.async_copy_global_to_shared(_desc{{[0-9]+}}, [v{{[0-9]+}}, v{{[0-9]+}} + _PART * 64, 0]
// BF16: for [[T:v[0-9]+]] in range(
// BF16-NOT: tma.async_copy_global_to_shared
// BF16: = gl.load(bias + {{.*}}, mask={{.*}}, other=gl.full([], 0.000000e+00, gl.bfloat16))
