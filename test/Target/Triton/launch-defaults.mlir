// RUN: tessel compile %tessel_src/examples/kir/batched_gemm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=GROW
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=KEEP
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=triton --emit=source | FileCheck %s --check-prefix=ROWS
// RUN: tessel compile %tessel_src/examples/kir/argmax.mlir --target=triton --emit=source | FileCheck %s --check-prefix=PAIRS
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=triton --emit=source | FileCheck %s --check-prefix=MAP
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=triton --emit=source | FileCheck %s --check-prefix=HIST

// COM: Triton legalization's sm_90 contraction defaults: the batched views' boxes have a fixed batch
// COM: axis (TMA declared off, as for attention), but a free accumulator tile takes them as rank-3
// COM: tensor descriptors (Triton's flattened walk loses the vector width of pointer loads along a
// COM: tile axis). With the f32 C tile staged for its TMA store (128 x 128 x 4 bytes), the tile keeps
// COM: its declared 128 x 128 (128 x 256 would not fit three operand stages beside a 128 KiB store
// COM: tile) and the pipeline deepens to four stages. WARPS is one warpgroup (4 warps) per 64
// COM: accumulator rows, spelled in Python for the bound parameters of a call. The flattened
// COM: persistent walk (FLATTEN) is the default there.
// GROW: batched_gemm_PARAMS = {'TILE_1': ([16, 32, 64, 128, 256], 128), 'TILE_2': ([16, 32, 64, 128, 256], 128), 'TILE_K': ([16, 32, 64, 128], 64),
// GROW-SAME: 'WARPS': ([1, 2, 4, 8, 16], 8), 'STAGES': ([1, 2, 3, 4, 5, 6], 4), 'TMA': ([0, 1], 1), 'FLATTEN': ([0, 1], 1)}
// GROW: def batched_gemm_WARPS(p):
// GROW: return next((w for w in (1, 2, 4, 8, 16) if w >= 4 * -(-(1 * p['TILE_1']) // 64)), 16)
// GROW: # _desc0: a's [1, 128, 64] boxes of shape [_extent_B, _extent_M, _extent_K]
// GROW: # _desc2: c's [1, 128, 128] boxes of shape [_extent_B, _extent_M, _extent_N]

// COM: Must not grow: the f32 GEMM's TMA store tile (128 x 256 x 4 bytes) with three operand stages
// COM: would exceed the 227 KiB of shared memory, so the declared 128 x 128 tile stays; its pipeline
// COM: deepens to four stages (4 x 32 KiB of operands and the 64 KiB store tile fit).
// KEEP: gemm_PARAMS = {'TILE_0': ([16, 32, 64, 128, 256], 128), 'TILE_1': ([16, 32, 64, 128, 256], 128),
// KEEP-SAME: 'WARPS': ([1, 2, 4, 8, 16], 8), 'STAGES': ([1, 2, 3, 4, 5, 6], 4)

// COM: A program without contractions: BLOCK covers the row length N (form-blocking), and WARPS
// COM: follows the largest fragment at 32 elements a thread, with at least enough warps that each
// COM: thread moves 32 bytes of the largest loaded fragment (1 to 4 warps for that floor): 2 at the
// COM: declared BLOCK of 512 f32 (2 KiB), 4 at a bound BLOCK of 1024, 8 at 8192. The staged row path's
// COM: tile is ROWS x BLOCK (pgpu-pack-rows): 2 warps at the declared 1 x 512 f32 (ROWS declares one
// COM: row a program; a call's default packs short rows, and WARPS follows at the call).
// ROWS: softmax_PARAMS = {'BLOCK': ([16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 512), 'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1), 'WARPS': ([1, 2, 4, 8, 16], 2),
// ROWS: softmax_COVERS = {'BLOCK': 'N'}
// ROWS: def softmax_WARPS(p):
// ROWS: return next((w for w in (1, 2, 4, 8, 16) if w >= max(max(1, min(4, -(-(max(4 * p['ROWS'] * p['BLOCK'], 4 * p['BLOCK'])) // 1024))), -(-(max(1 * p['ROWS'], 1 * p['BLOCK'], 1 * p['ROWS'] * p['BLOCK'])) // 1024))), 16)

// COM: A reduction that combines pairs (argmax: value and index): at most 128 elements a thread,
// COM: at least 2 warps (2 at the declared BLOCK of 512; 2 also at a bound BLOCK of 8192). Its one
// COM: row loop is staged and packed by pgpu-pack-rows (ROWS declares 1), so the tile is ROWS x BLOCK.
// PAIRS: argmax_PARAMS = {'BLOCK': ([16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 512), 'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1), 'WARPS': ([1, 2, 4, 8, 16], 2),
// PAIRS: return next((w for w in (1, 2, 4, 8, 16) if w >= max(2, -(-(max(1 * p['ROWS'], 1 * p['BLOCK'], 1 * p['ROWS'] * p['BLOCK'])) // 4096))), 16)

// COM: A lanewise program (a pointwise map over blocks: no reduction, contraction, atomic or carried
// COM: fragment): each thread moves one 16-byte vector of its largest loaded fragment (1 to 4 warps
// COM: for that floor), so 4 warps at the declared BLOCK of 512 f32 (the streamed rows above keep 2).
// MAP: vector_add_PARAMS = {{.*}}'BLOCK': ([64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512), 'WARPS': ([1, 2, 4, 8, 16], 4),
// MAP: def vector_add_WARPS(p):
// MAP: return next((w for w in (1, 2, 4, 8, 16) if w >= max(max(1, min(4, -(-(4 * p['BLOCK']) // 512))), -(-(1 * p['BLOCK']) // 1024))), 16)

// COM: A declared bin count of a pgpu.histogram (tl.histogram: about bins/32 ALU operations per element)
// COM: keeps its candidates up to 2048 in Triton (the PTX provider keeps them all: histogram-shared.mlir).
// HIST: histogram_PARAMS = {{.*}}'HBINS': ([32, 64, 128, 256, 512, 1024, 2048], 32), 'HPASSES': ([1, 2, 4, 8], 1),
// COM: Must not fire: the call's default does not count in passes over bin ranges in Triton (the
// COM: `passes` link is dropped: P passes of B/P bins cost tl.histogram's bins/32 per element like one of B).
// HIST: histogram_COVERS = {'HBINS': 'B'}
// HIST-NEXT: histogram_PASSES = {}
