// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=UNSPLIT
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --param=SPLIT_K=8 | FileCheck %s --check-prefix=SPLIT
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --param=SPLIT_K=8 --param=STAGES=6 | FileCheck %s --check-prefix=DEEP
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=NONE

// COM: pgpu-split-contractions splits the GEMM of two views (examples/kir/gemm.mlir) behind
// COM: `pgpu.if SPLIT_K != 1`. The Triton provider's defaults read the branch the declared defaults take
// COM: (triton::isSplitAlternative, untakenAt): at SPLIT_K = 1 the unsplit loop's, so the GEMM keeps
// COM: its 4 stages, its resource model (one staged 128 x 128 f32 C tile, not two) and C's TMA store;
// COM: SPLIT_KS is `tl.where(SPLIT_K != 1, ..., 1)`, which Triton folds to 1 there.
// UNSPLIT: gemm_PARAMS = {{.*}}'SPLIT_K': ([1, 2, 4, 8, 16, 32, 64], 1), {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 4)
// UNSPLIT: if (_staged if p['TMA'] == 1 and (_staged := 2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + 2 * p['TILE_K'] * p['TILE_1'] * p['STAGES'] + 4 * p['TILE_0'] * p['TILE_1'] * p['TMA']) <= 232448
// UNSPLIT: # _desc2: c's [128, 128] boxes
// UNSPLIT: = tl.where({{v[0-9]+}}, {{v[0-9]+}}, 1)
// UNSPLIT: if _G0:
// UNSPLIT: _desc2.store(
// UNSPLIT: else:
// UNSPLIT: _desc2.store(
// UNSPLIT: num_stages=4

// COM: A split binding's model reads the split branch: its C tile is staged for TMA where the program
// COM: fits with it (4 stages) ...
// SPLIT: # _desc2: c's [128, 128] boxes
// SPLIT: _desc2.store(
// SPLIT: num_stages=4
// COM: ... and stored through pointers at 6 stages, the depth the call's rule gives split chunks
// COM: (python/tessel/_kernel.py, _fill_programs).
// DEEP-NOT: _desc2
// DEEP: tl.store(c +
// DEEP: num_stages=6

// COM: Must not apply: a kernel without a split contraction has no alternative (nothing skipped).
// NONE-NOT: SPLIT_K
// NONE: layernorm_PARAMS
