// RUN: tessel-opt %s -split-input-file -pgpu-hoist-invariant-reductions -verify-diagnostics | FileCheck %s

// COM: A row's log-sum-exp used inside the per-row sum (corpus 237's JSD, one distribution): as
// COM: constructed, the max and the exp-sum walk the row once per member v of the outer sum, O(V^2).
// COM: Neither depends on v: both move before the outer sum with the log and add over them; the
// COM: load of a[r, v] and the code over it stay in the element body.
// CHECK-LABEL: pgpu.kernel @row_lse
// CHECK: pgpu.execution_group
// CHECK-NEXT: ^bb0(%[[ROW:.*]]: index):
// CHECK: %[[MAX:.*]] = pgpu.range_reduce %c0 to %{{.*}} identity(%{{.*}} : f32)
// CHECK: %[[SUM:.*]] = pgpu.range_reduce %c0 to %{{.*}} identity(%{{.*}} : f32)
// CHECK: %[[LOG:.*]] = pgpu.unary log %[[SUM]] : f32
// CHECK: %[[LSE:.*]] = pgpu.binary add %[[MAX]], %[[LOG]] : f32
// CHECK: pgpu.range_reduce %c0 to %{{.*}} identity(%{{.*}} : f32) -> (f32) element {
// CHECK-NEXT: ^bb0(%[[V:.*]]: index):
// CHECK-NEXT: pgpu.load %a[%[[ROW]], %[[V]]]
// CHECK-NEXT: pgpu.binary sub %{{.*}}, %[[LSE]] : f32
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.yield
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_lse(%a: !pgpu.view<f32, [N, V], in>, %out: !pgpu.view<f32, [N], out>) {
    %true = arith.constant true
    %cst_1 = arith.constant 0.000000e+00 : f32
    %cst_2 = arith.constant 0xFF800000 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f32, [N, V], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f32, [N, V], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    pgpu.program_space(%3) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%3) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        // expected-remark @+1 {{pgpu-hoist-invariant-reductions: 2 nested reduction(s) independent of the member computed once before this one (not once per member)}}
        %9 = pgpu.range_reduce %c0 to %5 identity(%cst_1 : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %11 = pgpu.load %a[%arg1, %arg2] valid %true : i1 fill %cst_1 : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
          %13 = pgpu.range_reduce %c0 to %5 identity(%cst_2 : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %35 = pgpu.load %a[%arg1, %arg3] valid %true : i1 fill %cst_1 : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
            pgpu.yield %35 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %35 = pgpu.binary max %arg3, %arg4 : f32
            pgpu.yield %35 : f32
          }
          %14 = pgpu.range_reduce %c0 to %5 identity(%cst_1 : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %35 = pgpu.load %a[%arg1, %arg3] valid %true : i1 fill %cst_1 : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
            %37 = pgpu.binary sub %35, %13 : f32
            %38 = pgpu.unary exp %37 : f32
            pgpu.yield %38 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %35 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %35 : f32
          }
          %15 = pgpu.unary log %14 : f32
          %16 = pgpu.binary add %13, %15 : f32
          %17 = pgpu.binary sub %11, %16 : f32
          %18 = pgpu.unary exp %17 : f32
          %19 = pgpu.binary mul %18, %17 : f32
          pgpu.yield %19 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %11 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %11 : f32
        }
        pgpu.store %9, %out[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the nested sum runs up to the member v (a prefix per v): it depends on the
// COM: member and stays in the element body.
// CHECK-LABEL: pgpu.kernel @prefix_nested
// CHECK: pgpu.range_reduce %c0 to %{{.*}} identity
// CHECK-NEXT: ^bb0(%[[V:.*]]: index):
// CHECK: pgpu.range_reduce %c0 to %[[V]] identity
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @prefix_nested(%a: !pgpu.view<f32, [N, V], in>, %out: !pgpu.view<f32, [N], out>) {
    %true = arith.constant true
    %cst_1 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f32, [N, V], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f32, [N, V], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    pgpu.program_space(%3) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%3) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %9 = pgpu.range_reduce %c0 to %5 identity(%cst_1 : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %11 = pgpu.load %a[%arg1, %arg2] valid %true : i1 fill %cst_1 : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
          %14 = pgpu.range_reduce %c0 to %arg2 identity(%cst_1 : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %35 = pgpu.load %a[%arg1, %arg3] valid %true : i1 fill %cst_1 : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
            pgpu.yield %35 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %35 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %35 : f32
          }
          %17 = pgpu.binary mul %11, %14 : f32
          pgpu.yield %17 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %11 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %11 : f32
        }
        pgpu.store %9, %out[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the outer sum's range is a CSR row's nonzeros, read from memory; an empty row
// COM: must read nothing, so the nested statistic over the row's first column stays per member.
// CHECK-LABEL: pgpu.kernel @bounds_read
// CHECK: pgpu.range_reduce %{{.*}} to %{{.*}} identity
// CHECK-NEXT: ^bb0(%{{.*}}: index):
// CHECK: pgpu.range_reduce %{{.*}} to %{{.*}} identity
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @bounds_read(%a: !pgpu.view<f32, [N, V], in>, %ptr: !pgpu.view<index, [P], in>, %out: !pgpu.view<f32, [N], out>) {
    %true = arith.constant true
    %cst_1 = arith.constant 0.000000e+00 : f32
    %ci = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f32, [N, V], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f32, [N, V], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    pgpu.program_space(%3) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%3) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %lo = pgpu.load %ptr[%arg1] valid %true : i1 fill %ci : index : !pgpu.view<index, [P], in>[index] -> index
        %n1 = pgpu.binary add %arg1, %c1 : index
        %hi = pgpu.load %ptr[%n1] valid %true : i1 fill %ci : index : !pgpu.view<index, [P], in>[index] -> index
        // expected-remark @+1 {{pgpu-hoist-invariant-reductions: nested reductions kept per member: the bounds are read from memory (an empty range must read nothing)}}
        %9 = pgpu.range_reduce %lo to %hi identity(%cst_1 : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %11 = pgpu.load %a[%arg2, %c0] valid %true : i1 fill %cst_1 : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
          %14 = pgpu.range_reduce %c0 to %5 identity(%cst_1 : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %35 = pgpu.load %a[%arg1, %arg3] valid %true : i1 fill %cst_1 : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
            pgpu.yield %35 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %35 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %35 : f32
          }
          %17 = pgpu.binary mul %11, %14 : f32
          pgpu.yield %17 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %11 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %11 : f32
        }
        pgpu.store %9, %out[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
