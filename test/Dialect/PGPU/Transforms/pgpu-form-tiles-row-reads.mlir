// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: A chain of two products whose pointwise math between them reads a per-row value from memory
// COM: (FlashAttention-2 backward's lse[i], corpus 279; here o[i, :] = sum_j f16(exp(<q_i, k_j> - m[i])) v[j, :]),
// COM: as constructed: the row's read m[i] before the walk of the output columns. The read is a value of
// COM: the chain (seed 002 §3.3: its fragment axes are the blocked axes it depends on), so the nest tiles
// COM: like one whose m is a kernel scalar: m is read once per row tile as a [TILE_0] vector before the
// COM: key loop, broadcast over the key tile where the first product's tile is shifted.
// CHECK-LABEL: pgpu.kernel @row_shift_attention
// CHECK: %[[M:.*]] = pgpu.load %m[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0]> {{.*}} -> !pgpu.fragment<f32, [TILE_0]>
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: %[[S:.*]] = pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_2]>)
// CHECK: pgpu.contract {{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
// CHECK: %[[MB:.*]] = pgpu.broadcast %[[M]] dims [0] : !pgpu.fragment<f32, [TILE_0]> -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
// CHECK: pgpu.binary sub %[[S]], %[[MB]] : !pgpu.fragment<f32, [TILE_0, TILE_2]>
// CHECK: pgpu.contract {{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NOT: pgpu.load %m
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_shift_attention(%q: !pgpu.view<f16, [S, D], in>, %k: !pgpu.view<f16, [S, D], in>, %v: !pgpu.view<f16, [S, D], in>, %m: !pgpu.view<f32, [S], in>, %o: !pgpu.view<f32, [S, D], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %q[0] : !pgpu.view<f16, [S, D], in>
    %1 = pgpu.extent %q[1] : !pgpu.view<f16, [S, D], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    pgpu.program_space(%3) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_2 (reduction loop over a nested contraction's tile), TILE_K (reduction loop); 2 reduction(s) become pgpu.contract; grouped traversal GROUP_0; persistent traversal (PERSIST programs per multiprocessor); per-row reads before the walk are read once per tile}}
      pgpu.execution_group %arg0 extents(%3) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %6 = pgpu.load %m[%arg1] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [S], in>[index] -> f32
        pgpu.foreach %c0 to %5 {
        ^bb0(%arg2: index):
          %7 = pgpu.range_reduce %c0 to %3 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %8 = pgpu.range_reduce %c0 to %5 identity(%cst_0 : f32) -> (f32) element {
            ^bb0(%arg4: index):
              %16 = pgpu.load %k[%arg3, %arg4] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [S, D], in>[index, index] -> f16
              %17 = pgpu.load %q[%arg1, %arg4] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [S, D], in>[index, index] -> f16
              %18 = pgpu.cast %16 : f16 to f32
              %19 = pgpu.cast %17 : f16 to f32
              %20 = pgpu.binary mul %18, %19 : f32
              pgpu.yield %20 : f32
            } combine {
            ^bb0(%arg4: f32, %arg5: f32):
              %16 = pgpu.binary add %arg4, %arg5 : f32
              pgpu.yield %16 : f32
            }
            %9 = pgpu.binary sub %8, %6 : f32
            %10 = pgpu.unary exp %9 : f32
            %11 = pgpu.cast %10 : f32 to f16
            %12 = pgpu.load %v[%arg3, %arg2] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [S, D], in>[index, index] -> f16
            %13 = pgpu.cast %11 : f16 to f32
            %14 = pgpu.cast %12 : f16 to f32
            %15 = pgpu.binary mul %13, %14 : f32
            pgpu.yield %15 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %8 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %8 : f32
          }
          pgpu.store %7, %o[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [S, D], out>[index, index]
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

// COM: Must not fire: the same nest whose row read is of the view the group writes (o[i, 0] before the
// COM: walk of o[i, :]): a tile of columns would read what another program's tile writes. One row a program.
// CHECK-LABEL: pgpu.kernel @row_read_of_output
// CHECK-NOT: pgpu.fragment
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_read_of_output(%q: !pgpu.view<f16, [S, D], in>, %k: !pgpu.view<f16, [S, D], in>, %v: !pgpu.view<f16, [S, D], in>, %m: !pgpu.view<f32, [S], in>, %o: !pgpu.view<f32, [S, D], inout>) {
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %q[0] : !pgpu.view<f16, [S, D], in>
    %1 = pgpu.extent %q[1] : !pgpu.view<f16, [S, D], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    pgpu.program_space(%3) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction: a loop after per-row reads or reductions (a row statistic, then the row) is blocked along the row by pgpu-form-blocking}}
      pgpu.execution_group %arg0 extents(%3) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %6 = pgpu.load %o[%arg1, %c0] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [S, D], inout>[index, index] -> f32
        pgpu.foreach %c0 to %5 {
        ^bb0(%arg2: index):
          %7 = pgpu.range_reduce %c0 to %3 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %8 = pgpu.range_reduce %c0 to %5 identity(%cst_0 : f32) -> (f32) element {
            ^bb0(%arg4: index):
              %16 = pgpu.load %k[%arg3, %arg4] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [S, D], in>[index, index] -> f16
              %17 = pgpu.load %q[%arg1, %arg4] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [S, D], in>[index, index] -> f16
              %18 = pgpu.cast %16 : f16 to f32
              %19 = pgpu.cast %17 : f16 to f32
              %20 = pgpu.binary mul %18, %19 : f32
              pgpu.yield %20 : f32
            } combine {
            ^bb0(%arg4: f32, %arg5: f32):
              %16 = pgpu.binary add %arg4, %arg5 : f32
              pgpu.yield %16 : f32
            }
            %9 = pgpu.binary sub %8, %6 : f32
            %10 = pgpu.unary exp %9 : f32
            %11 = pgpu.cast %10 : f32 to f16
            %12 = pgpu.load %v[%arg3, %arg2] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [S, D], in>[index, index] -> f16
            %13 = pgpu.cast %11 : f16 to f32
            %14 = pgpu.cast %12 : f16 to f32
            %15 = pgpu.binary mul %13, %14 : f32
            pgpu.yield %15 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %8 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %8 : f32
          }
          pgpu.store %7, %o[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [S, D], inout>[index, index]
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

// COM: Must not fire: a per-row read before a walk with no contraction (a row scale, o[i, :] = x[i, :] * m[i])
// COM: stays with pgpu-form-blocking, which walks the row in blocks.
// CHECK-LABEL: pgpu.kernel @row_scale
// CHECK-NOT: pgpu.fragment
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_scale(%x: !pgpu.view<f32, [S, D], in>, %m: !pgpu.view<f32, [S], in>, %o: !pgpu.view<f32, [S, D], out>) {
    %cst = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [S, D], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [S, D], in>
    %2 = pgpu.ceil_div %1, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %0, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    pgpu.program_space(%5) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction: a loop after per-row reads or reductions (a row statistic, then the row) is blocked along the row by pgpu-form-blocking}}
      pgpu.execution_group %arg0 extents(%5) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %6 = pgpu.load %m[%arg1] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [S], in>[index] -> f32
        pgpu.foreach %c0 to %3 {
        ^bb0(%arg2: index):
          %7 = pgpu.load %x[%arg1, %arg2] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [S, D], in>[index, index] -> f32
          %8 = pgpu.binary mul %7, %6 : f32
          pgpu.store %8, %o[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [S, D], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

