// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: A convolution written as per-tap contractions (corpus 35, here one-dimensional with two taps):
// COM: y[n, ow, oc] = sum_t sum_c x[n, ow + t - 1, c] * w[t, c, oc], x read at a shifted window
// COM: (pgpu.gather, zero outside the row). The window is free on program axes n and ow, the weights
// COM: on oc: the window is tiled along ow (its read's innermost free coordinate), n stays one member
// COM: per program. Each tap's sum becomes a K loop over [TILE_1, TILE_K] window tiles contracted
// COM: with [TILE_K, TILE_2] weight tiles, and the second loop starts from the first one's
// COM: accumulator (one f32 accumulator over both taps: an implicit GEMM, K = 2 * C); no fragment
// COM: addition is left. Before this, the nest was refused (each reduction's window operand was free
// COM: on two program axes) and each output element ran a scalar loop.
// CHECK-LABEL: pgpu.kernel @conv1d_taps
// CHECK: %[[TAP0:.*]] = pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_1, TILE_2]>)
// CHECK: %[[X0:.*]] = pgpu.gather %x[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %{{.*}} -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
// CHECK: %[[W0:.*]] = pgpu.load %w[{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_2, TILE_K]>
// CHECK: %[[W0T:.*]] = pgpu.transpose %[[W0]]
// CHECK: pgpu.contract %[[X0]], %[[W0T]], %{{.*}} reduce([1], [0])
// CHECK: %[[TAP1:.*]] = pgpu.for %{{.*}} iter_args(%[[TAP0]] : !pgpu.fragment<f32, [TILE_1, TILE_2]>)
// CHECK: %[[X1:.*]] = pgpu.gather %x[{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
// CHECK: pgpu.contract %[[X1]], %{{.*}}, %{{.*}} reduce([1], [0])
// CHECK-NOT: pgpu.binary add %{{.*}} : !pgpu.fragment<f32
// CHECK: pgpu.store %[[TAP1]], %y[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_2]>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @conv1d_taps(%x: !pgpu.view<f16, [N, W, C], in>, %w: !pgpu.view<f16, [2, C, OC], in>, %y: !pgpu.view<f32, [N, W, OC], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f16
    %c-1 = arith.constant -1 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [N, W, C], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [N, W, C], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<f16, [N, W, C], in>
    %3 = pgpu.extent %w[2] : !pgpu.view<f16, [2, C, OC], in>
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %2, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %3, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.ceil_div %0, %c1 : index
    %11 = pgpu.binary max %10, %c0 : index
    %12 = pgpu.binary mul %11, %5 : index
    %13 = pgpu.binary mul %12, %9 : index
    pgpu.program_space(%13) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_1 (program axis 1), TILE_2 (program axis 2), TILE_K (reduction loop), TILE_K (reduction loop); 2 reduction(s) become pgpu.contract; an operand free on several program axes is tiled along one (program axes 0 one member per program); 1 contraction(s) continue another's accumulator (one K over their sum); grouped traversal GROUP_1; persistent traversal (PERSIST programs per multiprocessor)}}
      pgpu.execution_group %arg0 extents(%11, %5, %9) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %14 = pgpu.range_reduce %c0 to %7 identity(%cst_0 : f32) -> (f32) element {
        ^bb0(%arg4: index):
          %18 = pgpu.binary add %arg2, %c-1 : index
          %19 = pgpu.cmp ge %18, %c0 : index
          %20 = pgpu.cmp lt %18, %1 : index
          %21 = pgpu.binary and %19, %20 : i1
          %22 = pgpu.gather %x[%arg1, %18, %arg4] valid %21 : i1 fill %cst : f16 : !pgpu.view<f16, [N, W, C], in>[index, index, index] -> f16
          %23 = pgpu.load %w[%c0, %arg4, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [2, C, OC], in>[index, index, index] -> f16
          %24 = pgpu.cast %22 : f16 to f32
          %25 = pgpu.cast %23 : f16 to f32
          %26 = pgpu.binary mul %24, %25 : f32
          pgpu.yield %26 : f32
        } combine {
        ^bb0(%arg4: f32, %arg5: f32):
          %18 = pgpu.binary add %arg4, %arg5 : f32
          pgpu.yield %18 : f32
        }
        %15 = pgpu.binary add %cst_0, %14 : f32
        %16 = pgpu.range_reduce %c0 to %7 identity(%cst_0 : f32) -> (f32) element {
        ^bb0(%arg4: index):
          %18 = pgpu.cmp ge %arg2, %c0 : index
          %19 = pgpu.cmp lt %arg2, %1 : index
          %20 = pgpu.binary and %18, %19 : i1
          %21 = pgpu.gather %x[%arg1, %arg2, %arg4] valid %20 : i1 fill %cst : f16 : !pgpu.view<f16, [N, W, C], in>[index, index, index] -> f16
          %22 = pgpu.load %w[%c1, %arg4, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [2, C, OC], in>[index, index, index] -> f16
          %23 = pgpu.cast %21 : f16 to f32
          %24 = pgpu.cast %22 : f16 to f32
          %25 = pgpu.binary mul %23, %24 : f32
          pgpu.yield %25 : f32
        } combine {
        ^bb0(%arg4: f32, %arg5: f32):
          %18 = pgpu.binary add %arg4, %arg5 : f32
          pgpu.yield %18 : f32
        }
        %17 = pgpu.binary add %15, %16 : f32
        pgpu.store %17, %y[%arg1, %arg2, %arg3] valid %true : i1 : f32, !pgpu.view<f32, [N, W, OC], out>[index, index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1", "axis2"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a window dotted with a vector, y[n, ow] = sum_c x[n, ow - 1, c] * v[c]. The
// COM: window is free on n and ow but v on no axis: no second free axis, no contraction tile (a
// COM: GEMV shape; pgpu-form-blocking and the reduction passes take it).
// CHECK-LABEL: pgpu.kernel @window_dot
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.range_reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @window_dot(%x: !pgpu.view<f16, [N, W, C], in>, %v: !pgpu.view<f16, [C], in>, %y: !pgpu.view<f32, [N, W], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f16
    %c-1 = arith.constant -1 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [N, W, C], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [N, W, C], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<f16, [N, W, C], in>
    %3 = pgpu.binary mul %0, %1 : index
    pgpu.program_space(%3) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no reduction is contraction-shaped (a sum over k of x * y with x and y on different free axes)}}
      pgpu.execution_group %arg0 extents(%0, %1) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %4 = pgpu.range_reduce %c0 to %2 identity(%cst_0 : f32) -> (f32) element {
        ^bb0(%arg4: index):
          %5 = pgpu.binary add %arg2, %c-1 : index
          %6 = pgpu.cmp ge %5, %c0 : index
          %7 = pgpu.gather %x[%arg1, %5, %arg4] valid %6 : i1 fill %cst : f16 : !pgpu.view<f16, [N, W, C], in>[index, index, index] -> f16
          %8 = pgpu.load %v[%arg4] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [C], in>[index] -> f16
          %9 = pgpu.cast %7 : f16 to f32
          %10 = pgpu.cast %8 : f16 to f32
          %11 = pgpu.binary mul %9, %10 : f32
          pgpu.yield %11 : f32
        } combine {
        ^bb0(%arg4: f32, %arg5: f32):
          %5 = pgpu.binary add %arg4, %arg5 : f32
          pgpu.yield %5 : f32
        }
        pgpu.store %4, %y[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [N, W], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not chain: the first tap's sum is also stored (a second use), so the second tap's loop
// COM: starts from zero and the two accumulators are added after both loops (the first one stays live).
// CHECK-LABEL: pgpu.kernel @kept_tap
// CHECK: %[[TAP0:.*]] = pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_1, TILE_2]>)
// CHECK: %[[ZERO1:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK-NEXT: pgpu.param "TILE_K"
// CHECK-NEXT: %[[TAP1:.*]] = pgpu.for %{{.*}} iter_args(%[[ZERO1]] : !pgpu.fragment<f32, [TILE_1, TILE_2]>)
// CHECK: pgpu.store %[[TAP0]], %y0
// CHECK: %[[SUM:.*]] = pgpu.binary add %[[TAP0]], %[[TAP1]] : !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: pgpu.store %[[SUM]], %y[
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @kept_tap(%x: !pgpu.view<f16, [N, W, C], in>, %w: !pgpu.view<f16, [2, C, OC], in>, %y0: !pgpu.view<f32, [N, W, OC], out>, %y: !pgpu.view<f32, [N, W, OC], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f16
    %c-1 = arith.constant -1 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [N, W, C], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [N, W, C], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<f16, [N, W, C], in>
    %3 = pgpu.extent %w[2] : !pgpu.view<f16, [2, C, OC], in>
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %2, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %3, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.ceil_div %0, %c1 : index
    %11 = pgpu.binary max %10, %c0 : index
    %12 = pgpu.binary mul %11, %5 : index
    %13 = pgpu.binary mul %12, %9 : index
    pgpu.program_space(%13) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_1 (program axis 1), TILE_2 (program axis 2), TILE_K (reduction loop), TILE_K (reduction loop); 2 reduction(s) become pgpu.contract; an operand free on several program axes is tiled along one (program axes 0 one member per program); grouped traversal GROUP_1; persistent traversal (PERSIST programs per multiprocessor)}}
      pgpu.execution_group %arg0 extents(%11, %5, %9) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %14 = pgpu.range_reduce %c0 to %7 identity(%cst_0 : f32) -> (f32) element {
        ^bb0(%arg4: index):
          %18 = pgpu.binary add %arg2, %c-1 : index
          %19 = pgpu.cmp ge %18, %c0 : index
          %20 = pgpu.cmp lt %18, %1 : index
          %21 = pgpu.binary and %19, %20 : i1
          %22 = pgpu.gather %x[%arg1, %18, %arg4] valid %21 : i1 fill %cst : f16 : !pgpu.view<f16, [N, W, C], in>[index, index, index] -> f16
          %23 = pgpu.load %w[%c0, %arg4, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [2, C, OC], in>[index, index, index] -> f16
          %24 = pgpu.cast %22 : f16 to f32
          %25 = pgpu.cast %23 : f16 to f32
          %26 = pgpu.binary mul %24, %25 : f32
          pgpu.yield %26 : f32
        } combine {
        ^bb0(%arg4: f32, %arg5: f32):
          %18 = pgpu.binary add %arg4, %arg5 : f32
          pgpu.yield %18 : f32
        }
        %15 = pgpu.binary add %cst_0, %14 : f32
        %16 = pgpu.range_reduce %c0 to %7 identity(%cst_0 : f32) -> (f32) element {
        ^bb0(%arg4: index):
          %18 = pgpu.cmp ge %arg2, %c0 : index
          %19 = pgpu.cmp lt %arg2, %1 : index
          %20 = pgpu.binary and %18, %19 : i1
          %21 = pgpu.gather %x[%arg1, %arg2, %arg4] valid %20 : i1 fill %cst : f16 : !pgpu.view<f16, [N, W, C], in>[index, index, index] -> f16
          %22 = pgpu.load %w[%c1, %arg4, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [2, C, OC], in>[index, index, index] -> f16
          %23 = pgpu.cast %21 : f16 to f32
          %24 = pgpu.cast %22 : f16 to f32
          %25 = pgpu.binary mul %23, %24 : f32
          pgpu.yield %25 : f32
        } combine {
        ^bb0(%arg4: f32, %arg5: f32):
          %18 = pgpu.binary add %arg4, %arg5 : f32
          pgpu.yield %18 : f32
        }
        pgpu.store %15, %y0[%arg1, %arg2, %arg3] valid %true : i1 : f32, !pgpu.view<f32, [N, W, OC], out>[index, index, index]
        %17 = pgpu.binary add %15, %16 : f32
        pgpu.store %17, %y[%arg1, %arg2, %arg3] valid %true : i1 : f32, !pgpu.view<f32, [N, W, OC], out>[index, index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1", "axis2"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
