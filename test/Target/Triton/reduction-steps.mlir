// RUN: tessel compile %tessel_src/bench/corpus/10_groupnorm.py:groupnorm --target=triton --emit=source | FileCheck %s --check-prefix=WALK
// RUN: tessel compile %tessel_src/bench/corpus/53_batchnorm_stats.py:batchnorm_stats --target=triton --emit=source | FileCheck %s --check-prefix=STRIDED
// RUN: tessel compile %tessel_src/bench/corpus/54_masked_mean_pool.py:masked_mean_pool --target=triton --emit=source | FileCheck %s --check-prefix=TILE
// RUN: tessel compile %tessel_src/bench/corpus/83_bias_grad_colsum.py:bias_grad_colsum --target=triton --emit=source | FileCheck %s --check-prefix=COLUMNS
// RUN: tessel compile %tessel_src/bench/corpus/88_global_avgpool_nhwc.py:global_avgpool_nhwc --target=triton --emit=source | FileCheck %s --check-prefix=POOL
// RUN: tessel compile %tessel_src/bench/corpus/65_pairwise_sqdist.py:pairwise_sqdist --target=triton --emit=source | FileCheck %s --check-prefix=NONE
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=NONE
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=triton --emit=source | FileCheck %s --check-prefix=NONE

// COM: The resource model's reduction steps (Resources.h, reductionSteps), spelled as <kernel>_LOOP_LOADS:
// COM: the bytes one iteration of a pgpu.for loads, by the declared parameter that steps it, where the loop
// COM: carries values, reduces a fragment and loads only one-axis blocks of its step (a row walked a block
// COM: at a time), or where every fragment it loads and carries is a tile spanning the step's axis beside
// COM: others (a tile fold: a column reduction's rows summed lane-wise into a carried tile). A call's default grows such a step where few programs run (python/tessel/_kernel.py,
// COM: Kernel._reduction_steps; python/tests/test_reduction_steps.py).
// COM: GroupNorm: each (n, g) program walks its group's cpg*H*W f16 values BLOCK at a time (mean, then
// COM: variance; the normalizing store loop reduces nothing and does not count).
// WALK: def groupnorm_LOOP_LOADS(p):
// WALK: return {'BLOCK': 2 * p['BLOCK']}
// WALK: def groupnorm_PROGRAMS(p, _v):

// COM: BatchNorm statistics: a channel's (N, H, W) f32 values, strided rows walked the same way.
// STRIDED: def batchnorm_stats_LOOP_LOADS(p):
// STRIDED: return {'BLOCK': 4 * p['BLOCK']}

// COM: Column sums (pgpu-tile-column-reductions): [BLOCK_R, BLOCK_C] bf16 tiles of dy summed into a carried
// COM: [BLOCK_R, BLOCK_C] f32 tile, split over FOLD_SPLIT programs (8 column tiles x 32 at the bench shape:
// COM: 2 programs a multiprocessor, each waiting on one 4 KiB tile an iteration at the declared 16 rows).
// COLUMNS: def bias_grad_colsum_LOOP_LOADS(p):
// COLUMNS-NEXT: """
// COLUMNS-NEXT: return {'BLOCK_R': 2 * p['BLOCK_R'] * p['BLOCK_C']}
// COM: NHWC global average pooling: an image's (h, w) rows of C-wide f16 tiles, the same tile fold.
// POOL: def global_avgpool_nhwc_LOOP_LOADS(p):
// POOL-NEXT: """
// POOL-NEXT: return {'BLOCK_R': 2 * p['BLOCK_R'] * p['BLOCK_C']}

// COM: Must not fire for a tile fold whose iteration also loads a one-axis block: masked mean pooling's
// COM: [BLOCK_R, BLOCK_C] token tiles are weighted by a [BLOCK_R] mask row (left as it was: 512 programs at
// COM: its bench shape, 1.99x torch.compile); only its one-axis mask-sum walk counts.
// TILE: def masked_mean_pool_LOOP_LOADS(p):
// TILE-NEXT: """
// TILE-NEXT: return {'BLOCK': 4 * p['BLOCK']}

// COM: Must not fire: the pairwise squared distance reduces [TILE_0, TILE_1, TILE_K] products (tiles of
// COM: several axes), the GEMM's loop contracts, the vector add has no loop.
// NONE-NOT: _LOOP_LOADS
// NONE: _PROGRAMS(p, _v)
// NONE-NOT: _LOOP_LOADS
