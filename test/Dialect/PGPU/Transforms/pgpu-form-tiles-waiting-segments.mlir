// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: Construction's chain of segments with a waiting segment and the ticketed end (the second phase
// COM: reads the workspace the first wrote): each segment is tiled as a sole group would be, the wait
// COM: loop before the second group stays, the workspace accesses become tile loads and stores, each
// COM: segment's count becomes its tiles in the chain's bound and shift, and the space's total is their
// COM: sum, at least 1 (pgpu-flatten-worksets' output for T.buffer W = X X^T, then Y = cast(W) X).
// CHECK-LABEL: pgpu.kernel @hand2
// CHECK: pgpu.param "TILE_2"
// CHECK: %[[T:.*]] = pgpu.binary add %[[S0:.*]], %[[S1:.*]] : index
// CHECK: %[[T1:.*]] = pgpu.binary max %[[T]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[T1]])
// CHECK: pgpu.cmp lt %{{.*}}, %[[S0]] : index
// CHECK: pgpu.execution_group {{.*}} segment 0 roles ["axis0", "grouped tiles"]
// CHECK: pgpu.contract {{.*}} -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: pgpu.buffer_store {{.*}} : !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: pgpu.binary sub %{{.*}}, %[[S0]] : index
// CHECK: pgpu.cmp lt %{{.*}}, %[[S1]] : index
// CHECK: pgpu.while
// CHECK: pgpu.execution_group {{.*}} segment 1 roles ["axis0", "grouped tiles"]
// CHECK: pgpu.buffer_load {{.*}} -> !pgpu.fragment<f32, [TILE_1, TILE_K]>
// CHECK: pgpu.contract
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
    %11 = pgpu.binary mul %4, %6 : index
    %12 = pgpu.binary mul %11, %6 : index
    %13 = pgpu.binary mul %4, %6 : index
    %14 = pgpu.binary mul %13, %8 : index
    %15 = pgpu.binary add %12, %14 : index
    %c1_1 = arith.constant 1 : index
    %16 = pgpu.binary max %15, %c1_1 : index
    pgpu.program_space(%16) {
    ^bb0(%arg0_2: index):
      %17 = pgpu.cmp lt %arg0_2, %12 : index
      pgpu.if %17 {
        // expected-remark @+1 {{pgpu-form-tiles: segment 0 of 2: tiled a contraction nest}}
        pgpu.execution_group %arg0_2 extents(%4, %6, %6) segment 0 roles ["axis0", "axis1", "axis2"] {
        ^bb0(%arg1_3: index, %arg2: index, %arg3: index):
          %18 = pgpu.range_reduce %c0 to %8 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg4: index):
            %19 = pgpu.load %X[%arg1_3, %arg2, %arg4] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
            %20 = pgpu.load %X[%arg1_3, %arg3, %arg4] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
            %21 = pgpu.cast %19 : bf16 to f32
            %22 = pgpu.cast %20 : bf16 to f32
            %23 = pgpu.binary mul %21, %22 : f32
            pgpu.yield %23 : f32
          } combine {
          ^bb0(%arg4: f32, %arg5: f32):
            %19 = pgpu.binary add %arg4, %arg5 : f32
            pgpu.yield %19 : f32
          }
          pgpu.buffer_store %18, %arg0[%arg1_3, %arg2, %arg3] valid %true : i1 : f32, !pgpu.buffer<f32, [B, M, M], workspace>[index, index, index]
          pgpu.yield
        } {roles = ["axis0", "axis1", "axis2"], segment = 0 : i64}
        pgpu.yield
      } else {
        %18 = pgpu.binary sub %arg0_2, %12 : index
        %19 = pgpu.cmp lt %18, %14 : index
        pgpu.if %19 {
          %20 = pgpu.binary sub %arg0_2, %18 : index
          %21 = pgpu.cast %20 : index to i32
          pgpu.while {
            %22 = pgpu.atomic_load %arg1[%c0] valid %true : i1 order acquire sharing invocation : !pgpu.buffer<i32, [1], workspace>[index] -> i32
            %23 = pgpu.cmp lt %22, %21 : i32
            pgpu.condition %23
          } do {
            pgpu.yield
          }
          // expected-remark @+1 {{pgpu-form-tiles: segment 1 of 2: tiled a contraction nest}}
          pgpu.execution_group %18 extents(%4, %6, %8) segment 1 roles ["axis0", "axis1", "axis2"] {
          ^bb0(%arg1_3: index, %arg2: index, %arg3: index):
            %22 = pgpu.range_reduce %c0 to %6 identity(%cst_0 : f32) -> (f32) element {
            ^bb0(%arg4: index):
              %24 = pgpu.buffer_load %arg0[%arg1_3, %arg2, %arg4] valid %true : i1 fill %cst_0 : f32 : !pgpu.buffer<f32, [B, M, M], workspace>[index, index, index] -> f32
              %25 = pgpu.cast %24 : f32 to bf16
              %26 = pgpu.load %X[%arg1_3, %arg4, %arg3] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
              %27 = pgpu.cast %25 : bf16 to f32
              %28 = pgpu.cast %26 : bf16 to f32
              %29 = pgpu.binary mul %27, %28 : f32
              pgpu.yield %29 : f32
            } combine {
            ^bb0(%arg4: f32, %arg5: f32):
              %24 = pgpu.binary add %arg4, %arg5 : f32
              pgpu.yield %24 : f32
            }
            %23 = pgpu.cast %22 : f32 to bf16
            pgpu.store %23, %Y[%arg1_3, %arg2, %arg3] valid %true : i1 : bf16, !pgpu.view<bf16, [B, M, N], out>[index, index, index]
            pgpu.yield
          } {roles = ["axis0", "axis1", "axis2"], segment = 1 : i64}
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

// COM: Must not tile a segment that is no contraction nest of program axes (its workset's bounds
// COM: depend on the program: pgpu-flatten-worksets left its foreach): it keeps its group and count;
// COM: the other segment is still tiled.
// CHECK-LABEL: pgpu.kernel @hand2_program_bound
// CHECK: pgpu.execution_group {{.*}} segment 0 roles ["axis0", "grouped tiles"]
// CHECK: pgpu.contract
// CHECK: pgpu.while
// CHECK: pgpu.execution_group {{.*}} segment 1 roles ["axis0"]
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.last_program
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
    %11 = pgpu.binary mul %4, %6 : index
    %12 = pgpu.binary mul %11, %6 : index
    %13 = pgpu.binary add %12, %4 : index
    %c1_1 = arith.constant 1 : index
    %14 = pgpu.binary max %13, %c1_1 : index
    pgpu.program_space(%14) {
    ^bb0(%arg0_2: index):
      %15 = pgpu.cmp lt %arg0_2, %12 : index
      pgpu.if %15 {
        // expected-remark @+1 {{pgpu-form-tiles: segment 0 of 2: tiled a contraction nest}}
        pgpu.execution_group %arg0_2 extents(%4, %6, %6) segment 0 roles ["axis0", "axis1", "axis2"] {
        ^bb0(%arg1_3: index, %arg2: index, %arg3: index):
          %16 = pgpu.range_reduce %c0 to %8 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg4: index):
            %17 = pgpu.load %X[%arg1_3, %arg2, %arg4] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
            %18 = pgpu.load %X[%arg1_3, %arg3, %arg4] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
            %19 = pgpu.cast %17 : bf16 to f32
            %20 = pgpu.cast %18 : bf16 to f32
            %21 = pgpu.binary mul %19, %20 : f32
            pgpu.yield %21 : f32
          } combine {
          ^bb0(%arg4: f32, %arg5: f32):
            %17 = pgpu.binary add %arg4, %arg5 : f32
            pgpu.yield %17 : f32
          }
          pgpu.buffer_store %16, %arg0[%arg1_3, %arg2, %arg3] valid %true : i1 : f32, !pgpu.buffer<f32, [B, M, M], workspace>[index, index, index]
          pgpu.yield
        } {roles = ["axis0", "axis1", "axis2"], segment = 0 : i64}
        pgpu.yield
      } else {
        %16 = pgpu.binary sub %arg0_2, %12 : index
        %17 = pgpu.cmp lt %16, %4 : index
        pgpu.if %17 {
          %18 = pgpu.binary sub %arg0_2, %16 : index
          %19 = pgpu.cast %18 : index to i32
          pgpu.while {
            %20 = pgpu.atomic_load %arg1[%c0] valid %true : i1 order acquire sharing invocation : !pgpu.buffer<i32, [1], workspace>[index] -> i32
            %21 = pgpu.cmp lt %20, %19 : i32
            pgpu.condition %21
          } do {
            pgpu.yield
          }
          // expected-remark @+1 {{pgpu-form-tiles: not tiled (segment 1 of 2)}}
          pgpu.execution_group %16 extents(%4) segment 1 roles ["axis0"] {
          ^bb0(%arg1_3: index):
            pgpu.foreach %c0 to %arg1_3 {
            ^bb0(%arg2: index):
              pgpu.foreach %c0 to %8 {
              ^bb0(%arg3: index):
                %20 = pgpu.range_reduce %c0 to %6 identity(%cst_0 : f32) -> (f32) element {
                ^bb0(%arg4: index):
                  %22 = pgpu.buffer_load %arg0[%arg1_3, %arg2, %arg4] valid %true : i1 fill %cst_0 : f32 : !pgpu.buffer<f32, [B, M, M], workspace>[index, index, index] -> f32
                  %23 = pgpu.cast %22 : f32 to bf16
                  %24 = pgpu.load %X[%arg1_3, %arg4, %arg3] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[index, index, index] -> bf16
                  %25 = pgpu.cast %23 : bf16 to f32
                  %26 = pgpu.cast %24 : bf16 to f32
                  %27 = pgpu.binary mul %25, %26 : f32
                  pgpu.yield %27 : f32
                } combine {
                ^bb0(%arg4: f32, %arg5: f32):
                  %22 = pgpu.binary add %arg4, %arg5 : f32
                  pgpu.yield %22 : f32
                }
                %21 = pgpu.cast %20 : f32 to bf16
                pgpu.store %21, %Y[%arg1_3, %arg2, %arg3] valid %true : i1 : bf16, !pgpu.view<bf16, [B, M, N], out>[index, index, index]
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

