// RUN: tessel-opt %s -split-input-file -pgpu-flatten-worksets -verify-diagnostics | FileCheck %s

// COM: Construction's chain of segments (a phase that uses what an earlier one wrote waits before its
// COM: group): each segment's whole-body workset nest becomes program axes of its own group, its count
// COM: (the product of the new extents) the chain's bound and shift, the space's total their sum (at
// COM: least 1: the ticketed end). Two chained products B x (M x M over N) then B x (M x N over M).
// CHECK-LABEL: pgpu.kernel @hand2
// CHECK-DAG: %[[B:.*]] = pgpu.binary max %{{.*}}, %c0 : index
// CHECK: %[[BM:.*]] = pgpu.binary mul %[[B]], %[[M:.*]] : index
// CHECK: %[[S0:.*]] = pgpu.binary mul %[[BM]], %[[M]] : index
// CHECK: %[[BM1:.*]] = pgpu.binary mul %[[B]], %[[M]] : index
// CHECK: %[[S1:.*]] = pgpu.binary mul %[[BM1]], %[[N:.*]] : index
// CHECK: %[[T:.*]] = pgpu.binary add %[[S0]], %[[S1]] : index
// CHECK: %[[T1:.*]] = pgpu.binary max %[[T]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[T1]])
// CHECK: pgpu.cmp lt %{{.*}}, %[[S0]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[B]], %[[M]], %[[M]]) segment 0 roles ["axis0", "axis1", "axis2"]
// CHECK-NOT: pgpu.foreach
// CHECK: pgpu.binary sub %{{.*}}, %[[S0]] : index
// CHECK: pgpu.cmp lt %{{.*}}, %[[S1]] : index
// CHECK: pgpu.while
// CHECK: pgpu.execution_group %{{.*}} extents(%[[B]], %[[M]], %[[N]]) segment 1 roles ["axis0", "axis1", "axis2"]
// CHECK-NOT: pgpu.foreach
// CHECK: pgpu.last_program
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @hand2(%X: !pgpu.view<bf16, [B, M, N], in>, %Y: !pgpu.view<bf16, [B, M, N], out>, %arg0: !pgpu.buffer<f32, [B, M, M], workspace> {pgpu.private = "workspace"}, %arg1: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %X[0] : !pgpu.view<bf16, [B, M, N], in>
    %1 = pgpu.extent %X[1] : !pgpu.view<bf16, [B, M, N], in>
    %2 = pgpu.extent %X[2] : !pgpu.view<bf16, [B, M, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary add %4, %4 : index
    %10 = pgpu.binary max %9, %c1 : index
    pgpu.program_space(%10) {
    ^bb0(%arg2: index):
      %11 = pgpu.cmp lt %arg2, %4 : index
      pgpu.if %11 {
        pgpu.execution_group %arg2 extents(%4) segment 0 roles ["axis0"] {
        ^bb0(%arg3: index):
          // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is segment 0's whole body becomes its program axis 1}}
          pgpu.foreach %c0 to %6 {
          ^bb0(%arg4: index):
            // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is segment 0's whole body becomes its program axis 2}}
            pgpu.foreach %c0 to %6 {
            ^bb0(%arg5: index):
              %12 = pgpu.range_reduce %c0 to %8 identity(%cst_0 : f32) -> (f32) element {
              ^bb0(%arg6: index):
                %13 = pgpu.load %X[%arg3, %arg4, %arg6] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
                %14 = pgpu.load %X[%arg3, %arg5, %arg6] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
                %15 = pgpu.cast %13 : bf16 to f32
                %16 = pgpu.cast %14 : bf16 to f32
                %17 = pgpu.binary mul %15, %16 : f32
                pgpu.yield %17 : f32
              } combine {
              ^bb0(%arg6: f32, %arg7: f32):
                %13 = pgpu.binary add %arg6, %arg7 : f32
                pgpu.yield %13 : f32
              }
              pgpu.buffer_store %12, %arg0[%arg3, %arg4, %arg5] valid %true : i1 : f32, !pgpu.buffer<f32, [B, M, M], workspace>[index, index, index]
              pgpu.yield
            }
            pgpu.yield
          }
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      } else {
        %12 = pgpu.binary sub %arg2, %4 : index
        %13 = pgpu.cmp lt %12, %4 : index
        pgpu.if %13 {
          %14 = pgpu.binary sub %arg2, %12 : index
          %15 = pgpu.cast %14 : index to i32
          pgpu.while {
            %16 = pgpu.atomic_load %arg1[%c0] valid %true : i1 order acquire sharing invocation : !pgpu.buffer<i32, [1], workspace>[index] -> i32
            %17 = pgpu.cmp lt %16, %15 : i32
            pgpu.condition %17
          } do {
            pgpu.yield
          }
          pgpu.execution_group %12 extents(%4) segment 1 roles ["axis0"] {
          ^bb0(%arg3: index):
            // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is segment 1's whole body becomes its program axis 1}}
            pgpu.foreach %c0 to %6 {
            ^bb0(%arg4: index):
              // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is segment 1's whole body becomes its program axis 2}}
              pgpu.foreach %c0 to %8 {
              ^bb0(%arg5: index):
                %16 = pgpu.range_reduce %c0 to %6 identity(%cst_0 : f32) -> (f32) element {
                ^bb0(%arg6: index):
                  %18 = pgpu.buffer_load %arg0[%arg3, %arg4, %arg6] valid %true : i1 fill %cst_0 : f32 : !pgpu.buffer<f32, [B, M, M], workspace>[index, index, index] -> f32
                  %19 = pgpu.cast %18 : f32 to bf16
                  %20 = pgpu.load %X[%arg3, %arg6, %arg5] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
                  %21 = pgpu.cast %19 : bf16 to f32
                  %22 = pgpu.cast %20 : bf16 to f32
                  %23 = pgpu.binary mul %21, %22 : f32
                  pgpu.yield %23 : f32
                } combine {
                ^bb0(%arg6: f32, %arg7: f32):
                  %18 = pgpu.binary add %arg6, %arg7 : f32
                  pgpu.yield %18 : f32
                }
                %17 = pgpu.cast %16 : f32 to bf16
                pgpu.store %17, %Y[%arg3, %arg4, %arg5] valid %true : i1 : bf16, !pgpu.view<bf16, [B, M, N], out>[index, index, index]
                pgpu.yield
              }
              pgpu.yield
            }
            pgpu.yield
          } {roles = ["axis0"], segment = 1 : i64}
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.last_program %arg1 : !pgpu.buffer<i32, [1], workspace> {
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire on a segment whose workset's bounds depend on the program (its batch coordinate):
// COM: segment 1 keeps its foreach and its count; segment 0 still flattens.
// CHECK-LABEL: pgpu.kernel @hand2_program_bound
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %{{.*}}) segment 0
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 1 roles ["axis0"]
// CHECK-NEXT: ^bb0(%[[PB:.*]]: index):
// CHECK-NEXT: pgpu.foreach %c0 to %[[PB]]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @hand2_program_bound(%X: !pgpu.view<bf16, [B, M, N], in>, %Y: !pgpu.view<bf16, [B, M, N], out>, %arg0: !pgpu.buffer<f32, [B, M, M], workspace> {pgpu.private = "workspace"}, %arg1: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %X[0] : !pgpu.view<bf16, [B, M, N], in>
    %1 = pgpu.extent %X[1] : !pgpu.view<bf16, [B, M, N], in>
    %2 = pgpu.extent %X[2] : !pgpu.view<bf16, [B, M, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary add %4, %4 : index
    %10 = pgpu.binary max %9, %c1 : index
    pgpu.program_space(%10) {
    ^bb0(%arg2: index):
      %11 = pgpu.cmp lt %arg2, %4 : index
      pgpu.if %11 {
        pgpu.execution_group %arg2 extents(%4) segment 0 roles ["axis0"] {
        ^bb0(%arg3: index):
          // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is segment 0's whole body becomes its program axis 1}}
          pgpu.foreach %c0 to %6 {
          ^bb0(%arg4: index):
            // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is segment 0's whole body becomes its program axis 2}}
            pgpu.foreach %c0 to %6 {
            ^bb0(%arg5: index):
              %12 = pgpu.range_reduce %c0 to %8 identity(%cst_0 : f32) -> (f32) element {
              ^bb0(%arg6: index):
                %13 = pgpu.load %X[%arg3, %arg4, %arg6] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
                %14 = pgpu.load %X[%arg3, %arg5, %arg6] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
                %15 = pgpu.cast %13 : bf16 to f32
                %16 = pgpu.cast %14 : bf16 to f32
                %17 = pgpu.binary mul %15, %16 : f32
                pgpu.yield %17 : f32
              } combine {
              ^bb0(%arg6: f32, %arg7: f32):
                %13 = pgpu.binary add %arg6, %arg7 : f32
                pgpu.yield %13 : f32
              }
              pgpu.buffer_store %12, %arg0[%arg3, %arg4, %arg5] valid %true : i1 : f32, !pgpu.buffer<f32, [B, M, M], workspace>[index, index, index]
              pgpu.yield
            }
            pgpu.yield
          }
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      } else {
        %12 = pgpu.binary sub %arg2, %4 : index
        %13 = pgpu.cmp lt %12, %4 : index
        pgpu.if %13 {
          %14 = pgpu.binary sub %arg2, %12 : index
          %15 = pgpu.cast %14 : index to i32
          pgpu.while {
            %16 = pgpu.atomic_load %arg1[%c0] valid %true : i1 order acquire sharing invocation : !pgpu.buffer<i32, [1], workspace>[index] -> i32
            %17 = pgpu.cmp lt %16, %15 : i32
            pgpu.condition %17
          } do {
            pgpu.yield
          }
          // expected-remark @+1 {{pgpu-flatten-worksets: segment 1 not flattened: its bounds are not launch-uniform}}
          pgpu.execution_group %12 extents(%4) segment 1 roles ["axis0"] {
          ^bb0(%arg3: index):
            pgpu.foreach %c0 to %arg3 {
            ^bb0(%arg4: index):
              pgpu.foreach %c0 to %8 {
              ^bb0(%arg5: index):
                %16 = pgpu.range_reduce %c0 to %6 identity(%cst_0 : f32) -> (f32) element {
                ^bb0(%arg6: index):
                  %18 = pgpu.buffer_load %arg0[%arg3, %arg4, %arg6] valid %true : i1 fill %cst_0 : f32 : !pgpu.buffer<f32, [B, M, M], workspace>[index, index, index] -> f32
                  %19 = pgpu.cast %18 : f32 to bf16
                  %20 = pgpu.load %X[%arg3, %arg6, %arg5] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
                  %21 = pgpu.cast %19 : bf16 to f32
                  %22 = pgpu.cast %20 : bf16 to f32
                  %23 = pgpu.binary mul %21, %22 : f32
                  pgpu.yield %23 : f32
                } combine {
                ^bb0(%arg6: f32, %arg7: f32):
                  %18 = pgpu.binary add %arg6, %arg7 : f32
                  pgpu.yield %18 : f32
                }
                %17 = pgpu.cast %16 : f32 to bf16
                pgpu.store %17, %Y[%arg3, %arg4, %arg5] valid %true : i1 : bf16, !pgpu.view<bf16, [B, M, N], out>[index, index, index]
                pgpu.yield
              }
              pgpu.yield
            }
            pgpu.yield
          } {roles = ["axis0"], segment = 1 : i64}
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.last_program %arg1 : !pgpu.buffer<i32, [1], workspace> {
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
