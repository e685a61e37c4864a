// RUN: tessel compile %tessel_src/bench/corpus/45_swiglu_down.py:swiglu_down --target=triton --emit=source | FileCheck %s
// RUN: tessel compile %tessel_src/bench/corpus/45_swiglu_down.py:swiglu_down --target=triton --emit=source --param=OPERAND_PHASES=1 | FileCheck %s --check-prefix=PHASES1
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/contraction_stages.py:plain --target=triton --emit=source | FileCheck %s --check-prefix=PLAIN
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/contraction_stages.py:residual --target=triton --emit=source | FileCheck %s --check-prefix=RESIDUAL
// RUN: tessel compile %tessel_src/bench/corpus/04_lora_fwd.py:lora_forward --target=triton --emit=source | FileCheck %s --check-prefix=LORA

// COM: The shared-memory estimate (Resources.cpp) of an A operand computed in the K loop from two loaded
// COM: tiles (corpus 45, silu(g) * u): Triton 3.6 pipelines g and u STAGES - 1 deep beneath the math
// COM: (a STAGES term and a negative one each), keeps the computed tile in one buffer and W STAGES deep.
// COM: The loads are not counted again as epilogue tiles. Before: g and u at STAGES each plus one
// COM: TMA-staged tile each (229376 bytes at 128x128x64, 3 stages, for 163904 allocated), so the default
// COM: kept 3 stages; then 4 at 128x128 (212992 estimated, 213080 allocated in an offline sm_90 compile).
// COM: Its A operand is prologue-bound (prologue-bound-tiles.mlir): 128x256 at 2 stages (180264 allocated).
// CHECK: swiglu_down_PARAMS = {{.*}}'TILE_0': ([16, 32, 64, 128, 256], 128), 'TILE_1': ([16, 32, 64, 128, 256], 256), 'TILE_K': ([16, 32, 64, 128], 64), {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 2), 'TMA': ([0, 1], 1)
// CHECK: def swiglu_down_PRUNE(p):
// CHECK-NEXT: """
// COM: (s39) pgpu-stage-operands adds the first phase's tiles and the staged loop's beside the recomputing loop's.
// CHECK-NEXT: if (_staged if p['TMA'] == 1 and (_staged := max(2 * p['TILE_0'] * p['TILE_K'] + 2 * p['TILE_K'] * p['TILE_1'] * p['STAGES'] + 2 * p['TILE_0'] * p['TILE_1'] * p['TMA'] + 2 * p['TILE_0'] * p['TILE_K'] * p['TMA'] + 2 * p['TILE_0'] * p['TILE_K'] * p['TMA'], 2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + -2 * p['TILE_0'] * p['TILE_K'] + 2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + -2 * p['TILE_0'] * p['TILE_K'] + 2 * p['TILE_0'] * p['TILE_K'] + 2 * p['TILE_K'] * p['TILE_1'] * p['STAGES'] + 2 * p['TILE_0'] * p['TILE_1'] * p['TMA'] + 2 * p['TILE_0'] * p['TILE_K'] * p['TMA'] + 2 * p['TILE_0'] * p['TILE_K'] * p['TMA'])) <= 232448 else

// COM: At OPERAND_PHASES = 1 neither the first phase nor the K loop reading the staged operand is compiled
// COM: (each runs where OPERAND_PHASES == 2 and a launch value holds; Triton folds them away): the estimate is
// COM: the recomputing loop's alone, without the first phase's g and u tiles as epilogue buffers (188416
// COM: estimated for 172144 allocated at 64x128x64, 5 stages, before; test_contraction_defaults.py compiles it).
// PHASES1: def swiglu_down_PRUNE(p):
// PHASES1-NEXT: """
// PHASES1-NEXT: if (_staged if p['TMA'] == 1 and (_staged := max(2 * p['TILE_0'] * p['TILE_1'] * p['TMA'], 2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + -2 * p['TILE_0'] * p['TILE_K'] + 2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + -2 * p['TILE_0'] * p['TILE_K'] + 2 * p['TILE_0'] * p['TILE_K'] + 2 * p['TILE_K'] * p['TILE_1'] * p['STAGES'] + 2 * p['TILE_0'] * p['TILE_1'] * p['TMA'])) <= 232448 else

// COM: Must not fire: operands loaded directly are STAGES deep with no negative term, and the plain GEMM
// COM: keeps its 128x256 tile at 3 stages.
// PLAIN: plain_PARAMS = {{.*}}'TILE_1': ([16, 32, 64, 128, 256], 256), {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 3)
// PLAIN: def plain_PRUNE(p):
// PLAIN-NOT: -2 *
// PLAIN: if (_staged if p['TMA'] == 1 and (_staged := 2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + 2 * p['TILE_K'] * p['TILE_1'] * p['STAGES'] + 2 * p['TILE_0'] * p['TILE_1'] * p['TMA']) <= 232448

// COM: An epilogue tile loaded after the K loop through a descriptor (a residual) still takes a buffer
// COM: beside the stages and the staged C tile.
// RESIDUAL: residual_PARAMS = {{.*}}'TILE_1': ([16, 32, 64, 128, 256], 128), {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 4)
// RESIDUAL: (_staged := 2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + 2 * p['TILE_K'] * p['TILE_1'] * p['STAGES'] + 2 * p['TILE_0'] * p['TILE_1'] * p['TMA'] + 2 * p['TILE_0'] * p['TILE_1'] * p['TMA']) <= 232448

// COM: One buffer set per operand, however many contractions read it (LoRA's X tile feeds X W and X A),
// COM: and an operand loaded in a loop around another loop (the persistent walk's (X A) B after the K
// COM: loop) takes one buffer: Triton pipelines innermost loops only. Offline sm_90 compile of corpus 04
// COM: at the new default (4 stages): 176168 bytes allocated, 180224 estimated (the X A tile Triton keeps
// COM: in registers). Before: X twice and B STAGES deep, 202752 estimated at 3 stages for 141352.
// LORA: lora_forward_PARAMS = {{.*}}'TILE_0': ([16, 32, 64, 128, 256], 128), 'TILE_1': ([16, 32, 64, 128, 256], 128), {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 4)
// LORA: (_staged := 2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + 2 * p['TILE_K'] * p['TILE_3'] * p['STAGES'] + 2 * p['TILE_K'] * p['TILE_1'] * p['STAGES'] + 2 * p['TILE_0'] * p['TILE_3'] + 2 * p['TILE_3'] * p['TILE_1'] + 2 * p['TILE_0'] * p['TILE_1'] * p['TMA']) <= 232448
