// RUN: tessel compile %tessel_src/bench/corpus/45_swiglu_down.py:swiglu_down --target=triton --emit=source --remarks 2>&1 | FileCheck %s
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/contraction_stages.py:sigmoid_cols --target=triton --emit=source --remarks 2>&1 | FileCheck %s --check-prefix=RHS
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/contraction_stages.py:exp_rows --target=triton --emit=source --remarks 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/contraction_stages.py:scaled --target=triton --emit=source --remarks 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: tessel compile %tessel_src/bench/corpus/113_rmsnorm_linear.py:rmsnorm_linear --target=triton --emit=source --remarks 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/contraction_stages.py:plain --target=triton --emit=source --remarks 2>&1 | FileCheck %s --check-prefix=ROWS

// COM: chooseContractionDefaults (TritonLegalize.cpp, prologueBoundAxis): an operand computed in the K
// COM: loop with m special-function (MUFU) operations an element bounds the loop on sm_90 while
// COM: 128 * m >= the other operand's free tile (16 MUFU operations a cycle against 2048 16-bit MMA FMAs).
// COM: Corpus 45's silu(g) * u (a sigmoid: an exponential and a reciprocal, m = 2) at 128x128 was
// COM: recomputed for each of N / 128 column tiles; before this rule the default kept 128x128 at 4
// COM: stages. After: the columns grow to 256 with the pipeline at 2 stages (the 3-stage 128x256 tile
// COM: with its staged store does not fit shared memory), halving the recomputation.
// CHECK: remark: triton: a contraction operand computed in the K loop costs 2 special-function operation(s) an element, recomputed for every TILE_1 tile: TILE_1 128 -> 256, pipeline depth 2 before deepening
// CHECK: swiglu_down_PARAMS = {{.*}}'TILE_0': ([16, 32, 64, 128, 256], 128), 'TILE_1': ([16, 32, 64, 128, 256], 256), {{.*}}'WARPS': ([1, 2, 4, 8, 16], 8), 'STAGES': ([1, 2, 3, 4, 5, 6], 2)

// COM: A computed B operand: its recomputation follows the row tiles, the axis the rule grows; 256 rows
// COM: at 256 columns would need 16 warps (more than two warpgroups), so the tile stays and says why.
// RHS: remark: triton: a contraction operand computed in the K loop costs 2 special-function operation(s) an element, recomputed for every TILE_0 tile: TILE_0 128 -> 128 (no larger candidate fits)
// RHS: sigmoid_cols_PARAMS = {{.*}}'TILE_0': ([16, 32, 64, 128, 256], 128), 'TILE_1': ([16, 32, 64, 128, 256], 256), {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 3)

// COM: Must not fire: one exponential an element against 256 columns (128 * 1 < 256; the columns grew
// COM: there by the ordinary rule, the pipeline keeps 3 stages).
// WIDE-NOT: special-function
// WIDE: exp_rows_PARAMS = {{.*}}'TILE_1': ([16, 32, 64, 128, 256], 256), {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 3)

// COM: Must not fire: a reciprocal square root of one value a row (a norm's scale, corpus 113's rstd)
// COM: is per row, not per element of the tile; nor on a GEMM of loaded operands.
// ROWS-NOT: special-function
