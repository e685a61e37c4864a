// RUN: tessel-opt %s -pgpu-refine-mapping | FileCheck %s

// COM: Must not fire: the scatter's guard holds a store before its group (not a wait), so the chain
// COM: is not construction's; the per-element groups keep one element a program.
// CHECK-LABEL: pgpu.kernel @sorted_segment_sum
// CHECK-NOT: BLOCK_P
// CHECK-NOT: pgpu.foreach
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @sorted_segment_sum(%x: !pgpu.view<f32, [N, D], in>, %ids: !pgpu.view<i32, [N], in> {kir.range = [0, "S"], pgpu.indexes = [[2, 0]]}, %out: !pgpu.view<f32, [S, D], inout>, %arg0: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0_i32 = arith.constant 0 : i32
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [N, D], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [N, D], in>
    %2 = pgpu.extent %out[0] : !pgpu.view<f32, [S, D], inout>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %8, %6 : index
    %10 = pgpu.binary mul %4, %6 : index
    %11 = pgpu.binary add %9, %10 : index
    %12 = pgpu.binary max %11, %c1 : index
    pgpu.program_space(%12) {
    ^bb0(%arg1: index):
      %13 = pgpu.cmp lt %arg1, %9 : index
      pgpu.if %13 {
        pgpu.execution_group %arg1 extents(%8, %6) segment 0 roles ["axis0", "axis1"] {
        ^bb0(%arg2: index, %arg3: index):
          pgpu.store %cst, %out[%arg2, %arg3] valid %true : i1 : f32, !pgpu.view<f32, [S, D], inout>[index, index]
          pgpu.yield
        } {roles = ["axis0", "axis1"], segment = 0 : i64}
        pgpu.yield
      } else {
        %14 = pgpu.binary sub %arg1, %9 : index
        %15 = pgpu.cmp lt %14, %10 : index
        pgpu.if %15 {
          %16 = pgpu.binary sub %arg1, %14 : index
          %17 = pgpu.cast %16 : index to i32
          pgpu.store %cst, %out[%c0, %c0] valid %true : i1 : f32, !pgpu.view<f32, [S, D], inout>[index, index]
          pgpu.execution_group %14 extents(%4, %6) segment 1 roles ["axis0", "axis1"] {
          ^bb0(%arg2: index, %arg3: index):
            %18 = pgpu.load %x[%arg2, %arg3] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, D], in>[index, index] -> f32
            %19 = pgpu.load %ids[%arg2] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [N], in>[index] -> i32
            %20 = pgpu.cast %19 : i32 to index
            pgpu.scatter_reduce %18, %out[%20, %arg3] valid %true : i1 : f32, !pgpu.view<f32, [S, D], inout>[index, index] {
            ^bb0(%arg4: f32, %arg5: f32):
              %21 = pgpu.binary add %arg4, %arg5 : f32
              pgpu.yield %21 : f32
            }
            pgpu.yield
          } {roles = ["axis0", "axis1"], segment = 1 : i64}
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.last_program %arg0 : !pgpu.buffer<i32, [1], workspace> {
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

