// RUN: tessel compile %tessel_src/bench/corpus/203_vit_attention_197.py:vit_attention_197 --target=triton --emit=source | FileCheck %s
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/contraction_stages.py:plain --target=triton --emit=source | FileCheck %s --check-prefix=PLAIN
// RUN: tessel compile %tessel_src/bench/corpus/176_gemm_row_softmax.py:gemm_row_softmax --target=triton --emit=source | FileCheck %s --check-prefix=ROW

// COM: The registers of a chained product (Resources.cpp, chainedProductBytes): attention's scores
// COM: [BLOCK_S, BLOCK_S_] f32, their exponentials cast to the f16 operand of the product with V, and
// COM: that product's [BLOCK_S, BLOCK_D] accumulator are live together; the budget is 192 registers a
// COM: thread. Before, the model counted the largest single fragment (the score tile: 128 registers at
// COM: 64x256 and 4 warps, admitted), so ViT's one-tile program (pgpu-stage-folds, 197 keys in 256) took
// COM: 64x256 at 4 warps, 224 registers of tiles; now that binding is pruned as 'chained registers' and
// COM: the call keeps the default key tile (two passes: 0.093 ms on the H100 against 0.125 one-tile).
// CHECK: def vit_attention_197_PRUNE(p):
// CHECK: if -(-(4 * p['BLOCK_S'] * p['BLOCK_S_'] + 2 * p['BLOCK_S'] * p['BLOCK_S_'] + 4 * p['BLOCK_S'] * p['BLOCK_D']) // 4 // (32 * p.get('WARPS', 4))) > 192:
// CHECK-NEXT: return 'chained registers'
// CHECK-NEXT: return None

// COM: Must not fire: a GEMM (one product) and a product whose row feeds folds and a store but no
// COM: second product (corpus 176: the row softmax of x @ W^T) have no chained product.
// PLAIN: def plain_PRUNE(p):
// PLAIN-NOT: > 192:
// PLAIN: return None
// ROW: def gemm_row_softmax_PRUNE(p):
// ROW-NOT: > 192:
// ROW: return None
