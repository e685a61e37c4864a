// With optimization_remarks on, each pass group says at the op what it adopted or rejected and why
// (seed 002 §1); with them off (the default) it says nothing.
// RUN: sed 's/#kir.compile_options<>/#kir.compile_options<optimization_remarks = true>/' %tessel_src/examples/kir/gemm.mlir > %t.gemm.mlir
// RUN: tessel compile %t.gemm.mlir --emit=pgpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=GEMM
// RUN: sed 's/#kir.compile_options<>/#kir.compile_options<optimization_remarks = true>/' %tessel_src/examples/kir/softmax.mlir > %t.softmax.mlir
// RUN: tessel compile %t.softmax.mlir --emit=pgpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=SOFTMAX
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --emit=pgpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// GEMM: remark: pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_0
// GEMM: remark: pgpu-refine-mapping: one instance per program kept
// GEMM: remark: pgpu-narrow-predicates: not split: a contraction's k loop over a view's extent stays whole for the provider's pipeliner

// SOFTMAX: remark: pgpu-form-tiles: not tiled: no contraction: a loop after per-row reads or reductions (a row statistic, then the row) is blocked along the row by pgpu-form-blocking
// SOFTMAX-DAG: remark: pgpu-form-blocking: 'pgpu.foreach' became a loop over blocks of BLOCK lanes
// SOFTMAX-DAG: remark: pgpu-form-blocking: 'pgpu.range_reduce' became a loop over blocks of BLOCK lanes
// SOFTMAX: remark: pgpu-stage-rows: loops over one row read it once when it fits one block
// SOFTMAX: remark: pgpu-narrow-predicates: 1 lane mask(s) are true on the loop's full blocks: split into full blocks without them and the partial last block

// QUIET-NOT: remark
