// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: A block-sparse (BSR) product as constructed (corpus 140): per output element (i, j) a loop over
// COM: the block row's nonzero blocks e adds the block's contraction over k to its carry. The loop is
// COM: one sum over the flattened members t in [0, n * 64) (e = lo + t / 64, k = t % 64; FlattenCarriedSums.cpp),
// COM: a contraction of values[e, i, k] (on i) with b[col[e] * 64 + k, j] (on j), which tiles: a TILE_K
// COM: loop over the row's blocks, the col read per lane, a pgpu.contract into a [TILE_1, TILE_2] tile.
// CHECK-LABEL: pgpu.kernel @bsr_matmul
// CHECK: %[[N:.*]] = pgpu.binary mul %{{.*}}, %c64_{{[0-9]+}} : index
// CHECK: pgpu.for %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_1, TILE_2]>)
// CHECK: %[[E:.*]] = pgpu.binary div %{{.*}}, %{{.*}} : !pgpu.fragment<index, [TILE_K]>
// CHECK: %[[K:.*]] = pgpu.binary rem %{{.*}}, %{{.*}} : !pgpu.fragment<index, [TILE_K]>
// CHECK: pgpu.load %col[
// CHECK: pgpu.load %values[
// CHECK: pgpu.gather %b[
// CHECK: pgpu.contract
// CHECK-NOT: pgpu.range_reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @bsr_matmul(%crow: !pgpu.view<i32, [MB1], in>, %col: !pgpu.view<i32, [NNZB], in>, %values: !pgpu.view<f16, [NNZB, 64, 64], in>, %b: !pgpu.view<f16, [K, N], in>, %out: !pgpu.view<f16, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %c0_i32 = arith.constant 0 : i32
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c64 = arith.constant 64 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0 = pgpu.extent %crow[0] : !pgpu.view<i32, [MB1], in>
    %1 = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %2 = pgpu.extent %col[0] : !pgpu.view<i32, [NNZB], in>
    %3 = pgpu.ceil_div %c64, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.binary sub %0, %c1 : index
    %8 = pgpu.ceil_div %7, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    pgpu.program_space(%9) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_1 (program axis 1), TILE_2 (program axis 2), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_1; segment walk: the group's members in order, each segment's tiles (bounds read in the program) dealt round-robin to PERSIST programs per multiprocessor, at most the tiles the segments' launch-time bounds allow; a loop adding a reduction to its carry is one reduction over the flattened members}}
      pgpu.execution_group %arg0 extents(%9) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %10 = pgpu.load %crow[%arg1] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [MB1], in>[index] -> i32
        %11 = pgpu.binary add %arg1, %c1 : index
        %12 = pgpu.load %crow[%11] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [MB1], in>[index] -> i32
        %13 = pgpu.cast %10 : i32 to index
        %14 = pgpu.cast %12 : i32 to index
        %15 = pgpu.binary max %13, %c0 : index
        %16 = pgpu.binary min %14, %2 : index
        %17 = pgpu.binary sub %16, %15 : index
        %18 = pgpu.binary max %17, %c0 : index
        %19 = pgpu.binary mul %arg1, %c64 : index
        %20 = pgpu.binary max %19, %c0 : index
        pgpu.foreach %c0 to %4 {
        ^bb0(%arg2: index):
          pgpu.foreach %c0 to %6 {
          ^bb0(%arg3: index):
            %21 = pgpu.for %c0 to %18 step %c1 iter_args(%cst_0 : f32) -> f32 {
            ^bb0(%arg4: index, %arg5: f32):
              %24 = pgpu.binary add %15, %arg4 : index
              %25 = pgpu.gather %col[%24] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [NNZB], in>[index] -> i32
              %26 = pgpu.cast %25 : i32 to index
              %27 = pgpu.binary mul %26, %c64 : index
              %28 = pgpu.range_reduce %c0 to %4 identity(%cst_0 : f32) -> (f32) element {
              ^bb0(%arg6: index):
                %30 = pgpu.gather %values[%24, %arg2, %arg6] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [NNZB, 64, 64], in>[index, index, index] -> f16
                %31 = pgpu.binary add %27, %arg6 : index
                %32 = pgpu.gather %b[%31, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
                %33 = pgpu.cast %30 : f16 to f32
                %34 = pgpu.cast %32 : f16 to f32
                %35 = pgpu.binary mul %33, %34 : f32
                pgpu.yield %35 : f32
              } combine {
              ^bb0(%arg6: f32, %arg7: f32):
                %30 = pgpu.binary add %arg6, %arg7 : f32
                pgpu.yield %30 : f32
              }
              %29 = pgpu.binary add %arg5, %28 : f32
              pgpu.yield %29 : f32
            }
            %22 = pgpu.cast %21 : f32 to f16
            %23 = pgpu.binary add %20, %arg2 : index
            pgpu.store %22, %out[%23, %arg3] valid %true : i1 : f16, !pgpu.view<f16, [M, N], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not fire: the inner range runs up to the trip e (k < e): no rectangle, the loop stays.
// CHECK-LABEL: pgpu.kernel @ragged_inner
// CHECK-NOT: TILE_
// CHECK: pgpu.for
// CHECK: pgpu.range_reduce %c0 to %arg4
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @ragged_inner(%crow: !pgpu.view<i32, [MB1], in>, %col: !pgpu.view<i32, [NNZB], in>, %values: !pgpu.view<f16, [NNZB, 64, 64], in>, %b: !pgpu.view<f16, [K, N], in>, %out: !pgpu.view<f16, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %c0_i32 = arith.constant 0 : i32
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c64 = arith.constant 64 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0 = pgpu.extent %crow[0] : !pgpu.view<i32, [MB1], in>
    %1 = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %2 = pgpu.extent %col[0] : !pgpu.view<i32, [NNZB], in>
    %3 = pgpu.ceil_div %c64, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.binary sub %0, %c1 : index
    %8 = pgpu.ceil_div %7, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    pgpu.program_space(%9) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: the program body has nested loops, control, atomics, or loop bounds that depend on the program}}
      pgpu.execution_group %arg0 extents(%9) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %10 = pgpu.load %crow[%arg1] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [MB1], in>[index] -> i32
        %11 = pgpu.binary add %arg1, %c1 : index
        %12 = pgpu.load %crow[%11] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [MB1], in>[index] -> i32
        %13 = pgpu.cast %10 : i32 to index
        %14 = pgpu.cast %12 : i32 to index
        %15 = pgpu.binary max %13, %c0 : index
        %16 = pgpu.binary min %14, %2 : index
        %17 = pgpu.binary sub %16, %15 : index
        %18 = pgpu.binary max %17, %c0 : index
        %19 = pgpu.binary mul %arg1, %c64 : index
        %20 = pgpu.binary max %19, %c0 : index
        pgpu.foreach %c0 to %4 {
        ^bb0(%arg2: index):
          pgpu.foreach %c0 to %6 {
          ^bb0(%arg3: index):
            %21 = pgpu.for %c0 to %18 step %c1 iter_args(%cst_0 : f32) -> f32 {
            ^bb0(%arg4: index, %arg5: f32):
              %24 = pgpu.binary add %15, %arg4 : index
              %25 = pgpu.gather %col[%24] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [NNZB], in>[index] -> i32
              %26 = pgpu.cast %25 : i32 to index
              %27 = pgpu.binary mul %26, %c64 : index
              %28 = pgpu.range_reduce %c0 to %arg4 identity(%cst_0 : f32) -> (f32) element {
              ^bb0(%arg6: index):
                %30 = pgpu.gather %values[%24, %arg2, %arg6] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [NNZB, 64, 64], in>[index, index, index] -> f16
                %31 = pgpu.binary add %27, %arg6 : index
                %32 = pgpu.gather %b[%31, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
                %33 = pgpu.cast %30 : f16 to f32
                %34 = pgpu.cast %32 : f16 to f32
                %35 = pgpu.binary mul %33, %34 : f32
                pgpu.yield %35 : f32
              } combine {
              ^bb0(%arg6: f32, %arg7: f32):
                %30 = pgpu.binary add %arg6, %arg7 : f32
                pgpu.yield %30 : f32
              }
              %29 = pgpu.binary add %arg5, %28 : f32
              pgpu.yield %29 : f32
            }
            %22 = pgpu.cast %21 : f32 to f16
            %23 = pgpu.binary add %20, %arg2 : index
            pgpu.store %22, %out[%23, %arg3] valid %true : i1 : f16, !pgpu.view<f16, [M, N], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not fire: the loop keeps a running maximum of the sums, not their sum.
// CHECK-LABEL: pgpu.kernel @max_carry
// CHECK-NOT: TILE_
// CHECK: pgpu.for
// CHECK: pgpu.range_reduce
// CHECK: pgpu.binary max
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @max_carry(%crow: !pgpu.view<i32, [MB1], in>, %col: !pgpu.view<i32, [NNZB], in>, %values: !pgpu.view<f16, [NNZB, 64, 64], in>, %b: !pgpu.view<f16, [K, N], in>, %out: !pgpu.view<f16, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %c0_i32 = arith.constant 0 : i32
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c64 = arith.constant 64 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0 = pgpu.extent %crow[0] : !pgpu.view<i32, [MB1], in>
    %1 = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %2 = pgpu.extent %col[0] : !pgpu.view<i32, [NNZB], in>
    %3 = pgpu.ceil_div %c64, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.binary sub %0, %c1 : index
    %8 = pgpu.ceil_div %7, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    pgpu.program_space(%9) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: the program body has nested loops, control, atomics, or loop bounds that depend on the program}}
      pgpu.execution_group %arg0 extents(%9) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %10 = pgpu.load %crow[%arg1] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [MB1], in>[index] -> i32
        %11 = pgpu.binary add %arg1, %c1 : index
        %12 = pgpu.load %crow[%11] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [MB1], in>[index] -> i32
        %13 = pgpu.cast %10 : i32 to index
        %14 = pgpu.cast %12 : i32 to index
        %15 = pgpu.binary max %13, %c0 : index
        %16 = pgpu.binary min %14, %2 : index
        %17 = pgpu.binary sub %16, %15 : index
        %18 = pgpu.binary max %17, %c0 : index
        %19 = pgpu.binary mul %arg1, %c64 : index
        %20 = pgpu.binary max %19, %c0 : index
        pgpu.foreach %c0 to %4 {
        ^bb0(%arg2: index):
          pgpu.foreach %c0 to %6 {
          ^bb0(%arg3: index):
            %21 = pgpu.for %c0 to %18 step %c1 iter_args(%cst_0 : f32) -> f32 {
            ^bb0(%arg4: index, %arg5: f32):
              %24 = pgpu.binary add %15, %arg4 : index
              %25 = pgpu.gather %col[%24] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [NNZB], in>[index] -> i32
              %26 = pgpu.cast %25 : i32 to index
              %27 = pgpu.binary mul %26, %c64 : index
              %28 = pgpu.range_reduce %c0 to %4 identity(%cst_0 : f32) -> (f32) element {
              ^bb0(%arg6: index):
                %30 = pgpu.gather %values[%24, %arg2, %arg6] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [NNZB, 64, 64], in>[index, index, index] -> f16
                %31 = pgpu.binary add %27, %arg6 : index
                %32 = pgpu.gather %b[%31, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
                %33 = pgpu.cast %30 : f16 to f32
                %34 = pgpu.cast %32 : f16 to f32
                %35 = pgpu.binary mul %33, %34 : f32
                pgpu.yield %35 : f32
              } combine {
              ^bb0(%arg6: f32, %arg7: f32):
                %30 = pgpu.binary add %arg6, %arg7 : f32
                pgpu.yield %30 : f32
              }
              %29 = pgpu.binary max %arg5, %28 : f32
              pgpu.yield %29 : f32
            }
            %22 = pgpu.cast %21 : f32 to f16
            %23 = pgpu.binary add %20, %arg2 : index
            pgpu.store %22, %out[%23, %arg3] valid %true : i1 : f16, !pgpu.view<f16, [M, N], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not fire: each trip stores its running sum (a write in the loop).
// CHECK-LABEL: pgpu.kernel @store_in_loop
// CHECK-NOT: TILE_
// CHECK: pgpu.for
// CHECK: pgpu.range_reduce
// CHECK: pgpu.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @store_in_loop(%crow: !pgpu.view<i32, [MB1], in>, %col: !pgpu.view<i32, [NNZB], in>, %values: !pgpu.view<f16, [NNZB, 64, 64], in>, %b: !pgpu.view<f16, [K, N], in>, %out: !pgpu.view<f16, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %c0_i32 = arith.constant 0 : i32
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c64 = arith.constant 64 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0 = pgpu.extent %crow[0] : !pgpu.view<i32, [MB1], in>
    %1 = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %2 = pgpu.extent %col[0] : !pgpu.view<i32, [NNZB], in>
    %3 = pgpu.ceil_div %c64, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.binary sub %0, %c1 : index
    %8 = pgpu.ceil_div %7, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    pgpu.program_space(%9) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: the program body has nested loops, control, atomics, or loop bounds that depend on the program}}
      pgpu.execution_group %arg0 extents(%9) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %10 = pgpu.load %crow[%arg1] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [MB1], in>[index] -> i32
        %11 = pgpu.binary add %arg1, %c1 : index
        %12 = pgpu.load %crow[%11] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [MB1], in>[index] -> i32
        %13 = pgpu.cast %10 : i32 to index
        %14 = pgpu.cast %12 : i32 to index
        %15 = pgpu.binary max %13, %c0 : index
        %16 = pgpu.binary min %14, %2 : index
        %17 = pgpu.binary sub %16, %15 : index
        %18 = pgpu.binary max %17, %c0 : index
        %19 = pgpu.binary mul %arg1, %c64 : index
        %20 = pgpu.binary max %19, %c0 : index
        pgpu.foreach %c0 to %4 {
        ^bb0(%arg2: index):
          pgpu.foreach %c0 to %6 {
          ^bb0(%arg3: index):
            %21 = pgpu.for %c0 to %18 step %c1 iter_args(%cst_0 : f32) -> f32 {
            ^bb0(%arg4: index, %arg5: f32):
              %24 = pgpu.binary add %15, %arg4 : index
              %25 = pgpu.gather %col[%24] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [NNZB], in>[index] -> i32
              %26 = pgpu.cast %25 : i32 to index
              %27 = pgpu.binary mul %26, %c64 : index
              %28 = pgpu.range_reduce %c0 to %4 identity(%cst_0 : f32) -> (f32) element {
              ^bb0(%arg6: index):
                %30 = pgpu.gather %values[%24, %arg2, %arg6] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [NNZB, 64, 64], in>[index, index, index] -> f16
                %31 = pgpu.binary add %27, %arg6 : index
                %32 = pgpu.gather %b[%31, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
                %33 = pgpu.cast %30 : f16 to f32
                %34 = pgpu.cast %32 : f16 to f32
                %35 = pgpu.binary mul %33, %34 : f32
                pgpu.yield %35 : f32
              } combine {
              ^bb0(%arg6: f32, %arg7: f32):
                %30 = pgpu.binary add %arg6, %arg7 : f32
                pgpu.yield %30 : f32
              }
              %29 = pgpu.binary add %arg5, %28 : f32
              %cast_s = pgpu.cast %29 : f32 to f16
              pgpu.store %cast_s, %out[%arg4, %arg3] valid %true : i1 : f16, !pgpu.view<f16, [M, N], out>[index, index]
              pgpu.yield %29 : f32
            }
            %22 = pgpu.cast %21 : f32 to f16
            %23 = pgpu.binary add %20, %arg2 : index
            pgpu.store %22, %out[%23, %arg3] valid %true : i1 : f16, !pgpu.view<f16, [M, N], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

