// RUN: tessel-opt %s -split-input-file -pgpu-tile-column-reductions -verify-diagnostics | FileCheck %s

// COM: A column sum beside an elementwise store of the same values (corpus 236's bias gradient): one
// COM: segment of construction's dispatch chain, one column per program reading a strided element a
// COM: row. Its coordinate becomes blocks of BLOCK_C columns ([BLOCK_R, BLOCK_C] tiles reduced along
// COM: BLOCK_R, a region fold over the rows); the segment's count in the space's total is replaced
// COM: (total - N + ceil(N / BLOCK_C)), the elementwise segment keeps its programs and bound.
// CHECK-LABEL: pgpu.kernel @scale_and_column_sum
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[EW:.*]] = pgpu.ceil_div %{{.*}}, %[[BP]] : index
// CHECK: %[[TOTAL:.*]] = pgpu.binary add %[[EW]], %[[N:.*]] : index
// CHECK: %[[COLS:.*]] = pgpu.param "BLOCK_C" : index
// CHECK: %[[BLOCKS:.*]] = pgpu.ceil_div %[[N]], %[[COLS]] : index
// CHECK: %[[NB:.*]] = pgpu.binary max %[[BLOCKS]], %{{.*}} : index
// CHECK: %[[REST:.*]] = pgpu.binary sub %[[TOTAL]], %[[N]] : index
// CHECK: %[[NEW:.*]] = pgpu.binary add %[[REST]], %[[NB]] : index
// CHECK: pgpu.program_space(%[[NEW]])
// CHECK: pgpu.cmp lt %{{.*}}, %[[EW]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[NB]]) segment 1
// CHECK: pgpu.region_fold
// CHECK: pgpu.reduce
// CHECK: pgpu.store %{{.*}}, %cs[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_C]>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @scale_and_column_sum(%x: !pgpu.view<f32, [M, N], in>, %s: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [M, N], out>, %cs: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>]} {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.binary mul %3, %5 : index
    %7 = pgpu.binary add %6, %5 : index
    %8 = pgpu.param "BLOCK_P" : index
    %9 = pgpu.binary mul %3, %5 : index
    %10 = pgpu.ceil_div %9, %8 : index
    %11 = pgpu.binary add %10, %5 : index
    pgpu.program_space(%11) {
    ^bb0(%arg0: index):
      %12 = pgpu.cmp lt %arg0, %10 : index
      pgpu.if %12 {
        pgpu.execution_group %arg0 extents(%10) segment 0 roles ["axis0*axis1"] {
        ^bb0(%arg1: index):
          %13 = pgpu.binary mul %arg1, %8 : index
          %14 = pgpu.binary add %13, %8 : index
          %15 = pgpu.binary min %14, %9 : index
          pgpu.foreach %13 to %15 {
          ^bb0(%arg2: index):
            %16 = pgpu.binary rem %arg2, %5 : index
            %17 = pgpu.binary div %arg2, %5 : index
            %18 = pgpu.load %x[%17, %16] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %19 = pgpu.load %s[%16] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N], in>[index] -> f32
            %20 = pgpu.binary mul %18, %19 : f32
            %21 = pgpu.binary add %20, %cst_0 : f32
            pgpu.store %21, %y[%17, %16] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        } {roles = ["axis0*axis1"], segment = 0 : i64}
        pgpu.yield
      } else {
        %13 = pgpu.binary sub %arg0, %10 : index
        // expected-remark @+1 {{pgpu-tile-column-reductions: program axis 0 (the kept axis) became blocks of BLOCK_C lanes}}
        pgpu.execution_group %13 extents(%5) segment 1 roles ["axis0"] {
        ^bb0(%arg1: index):
          %14 = pgpu.range_reduce %c0 to %3 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg2: index):
            %15 = pgpu.load %x[%arg2, %arg1] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %16 = pgpu.load %s[%arg1] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N], in>[index] -> f32
            %17 = pgpu.binary mul %15, %16 : f32
            %18 = pgpu.binary add %17, %cst_0 : f32
            pgpu.yield %18 : f32
          } combine {
          ^bb0(%arg2: f32, %arg3: f32):
            %15 = pgpu.binary add %arg2, %arg3 : f32
            pgpu.yield %15 : f32
          }
          pgpu.store %14, %cs[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        } {roles = ["axis0"], segment = 1 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the segment's reduction reads its rows contiguously (a row sum): one-axis
// COM: blocking serves it, the segment keeps one member a program.
// CHECK-LABEL: pgpu.kernel @row_sum_segment
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_sum_segment(%x: !pgpu.view<f32, [M, N], in>, %s: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [M, N], out>, %cs: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>]} {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.binary mul %3, %5 : index
    %7 = pgpu.binary add %6, %5 : index
    %8 = pgpu.param "BLOCK_P" : index
    %9 = pgpu.binary mul %3, %5 : index
    %10 = pgpu.ceil_div %9, %8 : index
    %11 = pgpu.binary add %10, %5 : index
    pgpu.program_space(%11) {
    ^bb0(%arg0: index):
      %12 = pgpu.cmp lt %arg0, %10 : index
      pgpu.if %12 {
        pgpu.execution_group %arg0 extents(%10) segment 0 roles ["axis0*axis1"] {
        ^bb0(%arg1: index):
          %13 = pgpu.binary mul %arg1, %8 : index
          %14 = pgpu.binary add %13, %8 : index
          %15 = pgpu.binary min %14, %9 : index
          pgpu.foreach %13 to %15 {
          ^bb0(%arg2: index):
            %16 = pgpu.binary rem %arg2, %5 : index
            %17 = pgpu.binary div %arg2, %5 : index
            %18 = pgpu.load %x[%17, %16] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %19 = pgpu.load %s[%16] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N], in>[index] -> f32
            %20 = pgpu.binary mul %18, %19 : f32
            %21 = pgpu.binary add %20, %cst_0 : f32
            pgpu.store %21, %y[%17, %16] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        } {roles = ["axis0*axis1"], segment = 0 : i64}
        pgpu.yield
      } else {
        %13 = pgpu.binary sub %arg0, %10 : index
        pgpu.execution_group %13 extents(%5) segment 1 roles ["axis0"] {
        ^bb0(%arg1: index):
          %14 = pgpu.range_reduce %c0 to %5 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg2: index):
            %15 = pgpu.load %x[%arg1, %arg2] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %16 = pgpu.load %s[%arg1] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N], in>[index] -> f32
            %17 = pgpu.binary mul %15, %16 : f32
            %18 = pgpu.binary add %17, %cst_0 : f32
            pgpu.yield %18 : f32
          } combine {
          ^bb0(%arg2: f32, %arg3: f32):
            %15 = pgpu.binary add %arg2, %arg3 : f32
            pgpu.yield %15 : f32
          }
          pgpu.store %14, %cs[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        } {roles = ["axis0"], segment = 1 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
