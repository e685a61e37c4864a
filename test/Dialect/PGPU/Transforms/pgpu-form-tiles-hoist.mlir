// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: RMSNorm before a linear layer as constructed (corpus 113): the row's sum of squares is a
// COM: range_reduce inside the product's element body, replayed per member k, but it depends only on
// COM: the row. It moves before the product with the rsqrt over it (pure, member-independent), and
// COM: the nest tiles: a TILE_K loop reducing the row tile's squares to a [TILE_0] fragment, the rsqrt
// COM: once per row, then the GEMM's K loop scaling the A tile by it before the contraction.
// CHECK-LABEL: pgpu.kernel @rmsnorm_linear
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0]>) -> !pgpu.fragment<f32, [TILE_0]>
// CHECK: pgpu.reduce %{{.*}} axes [1]
// CHECK: %[[SS:.*]] = pgpu.binary div %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_0]>
// CHECK: %[[R:.*]] = pgpu.unary rsqrt %{{.*}} : !pgpu.fragment<f32, [TILE_0]>
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK-NOT: pgpu.range_reduce
// CHECK-NOT: rsqrt
// CHECK: pgpu.broadcast %[[R]] dims [0] : !pgpu.fragment<f32, [TILE_0]> -> !pgpu.fragment<f32, [TILE_0, TILE_K]>
// CHECK: pgpu.contract
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @rmsnorm_linear(%x: !pgpu.view<bf16, [M, K], in>, %g: !pgpu.view<bf16, [K], in>, %w: !pgpu.view<bf16, [K, N], in>, %y: !pgpu.view<bf16, [M, N], out>, %eps: f32) {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [M, K], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<bf16, [M, K], in>
    %2 = pgpu.extent %w[1] : !pgpu.view<bf16, [K, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %4, %6 : index
    pgpu.program_space(%9) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_K (reduction loop), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_0; persistent traversal (PERSIST programs per multiprocessor); a nested reduction independent of the member is computed once before the enclosing one}}
      pgpu.execution_group %arg0 extents(%4, %6) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %10 = pgpu.cast %1 : index to f32
        %11 = pgpu.range_reduce %c0 to %8 identity(%cst_0 : f32) -> (f32) element {
        ^bb0(%arg3: index):
          %13 = pgpu.load %x[%arg1, %arg3] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, K], in>[index, index] -> bf16
          %14 = pgpu.cast %13 : bf16 to f32
          %15 = pgpu.range_reduce %c0 to %8 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg4: index):
            %28 = pgpu.load %x[%arg1, %arg4] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, K], in>[index, index] -> bf16
            %29 = pgpu.cast %28 : bf16 to f32
            %30 = pgpu.binary mul %29, %29 : f32
            pgpu.yield %30 : f32
          } combine {
          ^bb0(%arg4: f32, %arg5: f32):
            %28 = pgpu.binary add %arg4, %arg5 : f32
            pgpu.yield %28 : f32
          }
          %16 = pgpu.binary div %15, %10 : f32
          %17 = pgpu.binary add %16, %eps : f32
          %18 = pgpu.unary rsqrt %17 : f32
          %19 = pgpu.binary mul %14, %18 : f32
          %20 = pgpu.load %g[%arg3] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [K], in>[index] -> bf16
          %21 = pgpu.cast %20 : bf16 to f32
          %22 = pgpu.binary mul %19, %21 : f32
          %23 = pgpu.cast %22 : f32 to bf16
          %24 = pgpu.load %w[%arg3, %arg2] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [K, N], in>[index, index] -> bf16
          %25 = pgpu.cast %23 : bf16 to f32
          %26 = pgpu.cast %24 : bf16 to f32
          %27 = pgpu.binary mul %25, %26 : f32
          pgpu.yield %27 : f32
        } combine {
        ^bb0(%arg3: f32, %arg4: f32):
          %13 = pgpu.binary add %arg3, %arg4 : f32
          pgpu.yield %13 : f32
        }
        %12 = pgpu.cast %11 : f32 to bf16
        pgpu.store %12, %y[%arg1, %arg2] valid %true : i1 : bf16, !pgpu.view<bf16, [M, N], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not fire: the nested reduction runs up to the member k (a prefix sum per k): it depends
// COM: on the member, stays where it is, and the nest is not tiled.
// CHECK-LABEL: pgpu.kernel @prefix_nested
// CHECK-NOT: TILE_
// CHECK: pgpu.range_reduce %c0 to %{{.*}} identity
// CHECK-NEXT: ^bb0(%[[K:.*]]: index):
// CHECK: pgpu.range_reduce %c0 to %[[K]] identity
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @prefix_nested(%x: !pgpu.view<bf16, [M, K], in>, %g: !pgpu.view<bf16, [K], in>, %w: !pgpu.view<bf16, [K, N], in>, %y: !pgpu.view<bf16, [M, N], out>, %eps: f32) {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [M, K], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<bf16, [M, K], in>
    %2 = pgpu.extent %w[1] : !pgpu.view<bf16, [K, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %4, %6 : index
    pgpu.program_space(%9) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: a reduction nested in another's element body is tiled only when the inner one is a contraction or it does not depend on the member (computed once before the enclosing one)}}
      pgpu.execution_group %arg0 extents(%4, %6) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %10 = pgpu.cast %1 : index to f32
        %11 = pgpu.range_reduce %c0 to %8 identity(%cst_0 : f32) -> (f32) element {
        ^bb0(%arg3: index):
          %13 = pgpu.load %x[%arg1, %arg3] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, K], in>[index, index] -> bf16
          %14 = pgpu.cast %13 : bf16 to f32
          %15 = pgpu.range_reduce %c0 to %arg3 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg4: index):
            %28 = pgpu.load %x[%arg1, %arg4] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, K], in>[index, index] -> bf16
            %29 = pgpu.cast %28 : bf16 to f32
            %30 = pgpu.binary mul %29, %29 : f32
            pgpu.yield %30 : f32
          } combine {
          ^bb0(%arg4: f32, %arg5: f32):
            %28 = pgpu.binary add %arg4, %arg5 : f32
            pgpu.yield %28 : f32
          }
          %16 = pgpu.binary div %15, %10 : f32
          %17 = pgpu.binary add %16, %eps : f32
          %18 = pgpu.unary rsqrt %17 : f32
          %19 = pgpu.binary mul %14, %18 : f32
          %20 = pgpu.load %g[%arg3] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [K], in>[index] -> bf16
          %21 = pgpu.cast %20 : bf16 to f32
          %22 = pgpu.binary mul %19, %21 : f32
          %23 = pgpu.cast %22 : f32 to bf16
          %24 = pgpu.load %w[%arg3, %arg2] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [K, N], in>[index, index] -> bf16
          %25 = pgpu.cast %23 : bf16 to f32
          %26 = pgpu.cast %24 : bf16 to f32
          %27 = pgpu.binary mul %25, %26 : f32
          pgpu.yield %27 : f32
        } combine {
        ^bb0(%arg3: f32, %arg4: f32):
          %13 = pgpu.binary add %arg3, %arg4 : f32
          pgpu.yield %13 : f32
        }
        %12 = pgpu.cast %11 : f32 to bf16
        pgpu.store %12, %y[%arg1, %arg2] valid %true : i1 : bf16, !pgpu.view<bf16, [M, N], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

