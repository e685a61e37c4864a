// RUN: tessel compile %tessel_src/bench/corpus/53_batchnorm_stats.py:batchnorm_stats --target=triton --emit=source | FileCheck %s
// RUN: tessel compile %tessel_src/examples/layernorm.py:layernorm --target=triton --emit=source | FileCheck %s --check-prefix=ROW
// RUN: tessel compile %tessel_src/bench/corpus/10_groupnorm.py:groupnorm --target=triton --emit=source | FileCheck %s --check-prefix=GROUP

// COM: The registers of a flattened walk's carried lane coordinates (Resources.cpp, dividedLanes):
// COM: pgpu-form-blocking carries j / W, j / W + 1, j % W, j / (H W), j / (H W) + 1 and j % (H W) of
// COM: the lanes of corpus 53's (n, h, w) walk into each of its loops; they stay live across the loop
// COM: (six i32 vectors), with a 64-bit address a lane for the iteration and the one in flight (16
// COM: bytes a lane). Before, nothing was counted (-(0)), and the call grew BLOCK to 8192 at 8 warps:
// COM: 255 registers and 1276 bytes of spill stores a thread (sm_90a ptxas). Now BLOCK 2048 at 4 warps
// COM: is pruned (160 model registers) and the call stops at 1024 (80).
// CHECK: def batchnorm_stats_PRUNE(p):
// CHECK: if -(-(4 * p['BLOCK'] + 4 * p['BLOCK'] + 4 * p['BLOCK'] + 4 * p['BLOCK'] + 4 * p['BLOCK'] + 4 * p['BLOCK'] + 16 * p['BLOCK']) // 4 // (32 * p.get('WARPS', 4))) > 132:
// CHECK-NEXT: return 'registers'

// COM: Must not fire: a row walk whose lanes are not divided (layer norm's contiguous rows: an iota,
// COM: rematerialized) counts no carried registers; GroupNorm's coordinates are made outside the
// COM: guard whose else-branch walks, shared with the staged one-block path, and are not counted
// COM: (counting them sent its call to BLOCK 512 at 1 warp).
// ROW: def layernorm_PRUNE(p):
// ROW-NOT: 16 * p['BLOCK']
// ROW: return None
// GROUP: def groupnorm_PRUNE(p):
// GROUP: if -(-(0) // 4 // (32 * p.get('WARPS', 4))) > 132:
// GROUP-NOT: 16 * p['BLOCK']
// GROUP: return None
