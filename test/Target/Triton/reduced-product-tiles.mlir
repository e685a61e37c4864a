// RUN: tessel compile %tessel_src/bench/corpus/116_fused_linear_cross_entropy.py:fused_linear_cross_entropy --target=triton --emit=source | FileCheck %s --check-prefix=GROW
// RUN: tessel compile %tessel_src/bench/corpus/116_fused_linear_cross_entropy.py:fused_linear_cross_entropy --target=triton --emit=source --remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: tessel compile %tessel_src/bench/corpus/20_cross_attention.py:cross_attention --target=triton --emit=source | FileCheck %s --check-prefix=KEEP
// RUN: tessel compile %tessel_src/bench/corpus/20_cross_attention.py:cross_attention --target=triton --emit=source --remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET

// COM: A fold whose fresh product is only reduced (116's logsumexp over the rows of h @ W^T, a K loop
// COM: per vocabulary tile) is a GEMM with a row epilogue: chooseContractionDefaults grows its
// COM: accumulator tile like a GEMM's (was 64x64 at 4 warps: 32 FLOP a byte from L2 per K step).
// GROW: fused_linear_cross_entropy_PARAMS = {'BLOCK_N': ([16, 32, 64, 128, 256], 128), 'BLOCK_V': ([16, 32, 64, 128, 256], 128),
// GROW-SAME: 'WARPS': ([1, 2, 4, 8, 16], 8)
// REMARK: 116_fused_linear_cross_entropy.py:14:18: remark: triton: this product is only reduced (no contraction reads it): its fold takes a GEMM's accumulator tile, BLOCK_N 128 x BLOCK_V 128 at 8 warps

// COM: Must not fire: attention's scores feed P.V (another contraction), whose tile and registers the
// COM: fold's parameters also size; the fold keeps its declared tiles.
// KEEP: cross_attention_PARAMS = {'BLOCK_S': ([16, 32, 64, 128, 256], 64), 'BLOCK_T': ([16, 32, 64, 128, 256], 64),
// KEEP-SAME: 'WARPS': ([1, 2, 4, 8, 16], 4)
// QUIET-NOT: this product is only reduced
