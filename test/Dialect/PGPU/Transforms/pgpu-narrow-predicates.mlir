// RUN: tessel-opt %s -split-input-file -pgpu-narrow-predicates | FileCheck %s

// COM: A blocked row sum: the lane mask iota(k) < N is true on every full block. The loop splits at
// COM: mid = 0 + floor(max(N - 0, 0) / BLOCK) * BLOCK: [0, mid) loads with an all-true mask and no
// COM: select, then [mid, N) is the original body (the partial block), carrying on from the first.
// CHECK-LABEL: pgpu.kernel @rowsum
// CHECK: %[[STEP:.*]] = pgpu.param "BLOCK" : index
// CHECK: %[[SPAN:.*]] = pgpu.binary sub %[[N:.*]], %{{.*}} : index
// CHECK: %[[POS:.*]] = pgpu.binary max %[[SPAN]], %{{.*}} : index
// CHECK: %[[FULL:.*]] = pgpu.binary div %[[POS]], %[[STEP]] : index
// CHECK: %[[LEN:.*]] = pgpu.binary mul %[[FULL]], %[[STEP]] : index
// CHECK: %[[MID:.*]] = pgpu.binary add %{{.*}}, %[[LEN]] : index
// CHECK: %[[HEAD:.*]] = pgpu.for %{{.*}} to %[[MID]] step %[[STEP]] iter_args(%{{.*}} : f32) -> f32 {
// CHECK: %[[ALL:.*]] = pgpu.splat %{{.*}} : i1 -> !pgpu.fragment<i1, [BLOCK]>
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] valid %[[ALL]]
// CHECK-NOT: pgpu.select
// CHECK-NOT: pgpu.cmp
// CHECK: %[[TAIL:.*]] = pgpu.for %[[MID]] to %[[N]] step %[[STEP]] iter_args(%[[HEAD]] : f32) -> f32 {
// CHECK: pgpu.cmp lt
// CHECK: pgpu.select
// CHECK: pgpu.store %[[TAIL]], %y
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowsum(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512>]} {
    %true = arith.constant true
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    pgpu.program_space(%3) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%3) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %6 = pgpu.param "BLOCK" : index
        %7 = pgpu.for %c0 to %5 step %6 iter_args(%cst : f32) -> f32 {
        ^bb0(%arg2: index, %arg3: f32):
          %8 = pgpu.iota %arg2 : !pgpu.fragment<index, [BLOCK]>
          %9 = pgpu.splat %5 : index -> !pgpu.fragment<index, [BLOCK]>
          %10 = pgpu.cmp lt %8, %9 : !pgpu.fragment<index, [BLOCK]>
          %11 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %12 = pgpu.binary and %11, %10 : !pgpu.fragment<i1, [BLOCK]>
          %13 = pgpu.load %x[%arg1, %8] valid %12 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %14 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %15 = pgpu.select %12, %13, %14 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %16 = pgpu.reduce %15 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%arg4: f32, %arg5: f32):
            %18 = pgpu.binary add %arg4, %arg5 : f32
            pgpu.yield %18 : f32
          }
          %17 = pgpu.binary add %arg3, %16 : f32
          pgpu.yield %17 : f32
        }
        pgpu.store %7, %y[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the mask compares the lanes with another bound (M, not the loop's N).
// CHECK-LABEL: pgpu.kernel @other_bound
// CHECK: pgpu.for
// CHECK-NOT: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @other_bound(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512>]} {
    %true = arith.constant true
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    pgpu.program_space(%3) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%3) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %6 = pgpu.param "BLOCK" : index
        %7 = pgpu.for %c0 to %5 step %6 iter_args(%cst : f32) -> f32 {
        ^bb0(%arg2: index, %arg3: f32):
          %8 = pgpu.iota %arg2 : !pgpu.fragment<index, [BLOCK]>
          %9 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
          %10 = pgpu.cmp lt %8, %9 : !pgpu.fragment<index, [BLOCK]>
          %11 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %12 = pgpu.binary and %11, %10 : !pgpu.fragment<i1, [BLOCK]>
          %13 = pgpu.load %x[%arg1, %8] valid %12 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %14 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %15 = pgpu.select %12, %13, %14 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %16 = pgpu.reduce %15 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%arg4: f32, %arg5: f32):
            %18 = pgpu.binary add %arg4, %arg5 : f32
            pgpu.yield %18 : f32
          }
          %17 = pgpu.binary add %arg3, %16 : f32
          pgpu.yield %17 : f32
        }
        pgpu.store %7, %y[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the tiled GEMM's k loop masks its lanes against K, a view's extent, and it
// COM: holds a pgpu.contract: it stays one loop for the provider's software pipeliner (its box loads
// COM: are bounds-checked by the view's own extent).
// CHECK-LABEL: pgpu.kernel @gemm
// CHECK: pgpu.contract
// CHECK-NOT: pgpu.contract
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gemm(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %bias: !pgpu.view<f32, [N], in>, %c: !pgpu.view<f32, [M, N], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %cst = arith.constant 0.000000e+00 : f16
    %true = arith.constant true
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %2 = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary sub %6, %c0 : index
    %10 = pgpu.param "TILE_0" : index
    %11 = pgpu.ceil_div %4, %10 : index
    %12 = pgpu.param "TILE_1" : index
    %13 = pgpu.ceil_div %9, %12 : index
    %14 = pgpu.binary mul %11, %13 : index
    %15 = pgpu.param "PERSIST" : index
    %c132 = arith.constant 132 : index
    %16 = pgpu.binary mul %15, %c132 : index
    %17 = pgpu.binary min %14, %16 : index
    %18 = pgpu.binary mul %11, %13 : index
    pgpu.program_space(%17) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %14 step %17 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%18) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %19 = pgpu.param "GROUP_0" : index
          %20 = pgpu.binary mul %19, %13 : index
          %21 = pgpu.binary div %arg2, %20 : index
          %22 = pgpu.binary mul %21, %19 : index
          %23 = pgpu.binary sub %11, %22 : index
          %24 = pgpu.binary min %23, %19 : index
          %25 = pgpu.binary mul %21, %20 : index
          %26 = pgpu.binary sub %arg2, %25 : index
          %27 = pgpu.binary rem %26, %24 : index
          %28 = pgpu.binary add %22, %27 : index
          %29 = pgpu.binary div %26, %24 : index
          %30 = pgpu.param "TILE_0" : index
          %31 = pgpu.binary mul %28, %30 : index
          %32 = pgpu.iota %31 : !pgpu.fragment<index, [TILE_0]>
          %33 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %34 = pgpu.cmp lt %32, %33 : !pgpu.fragment<index, [TILE_0]>
          %35 = pgpu.param "TILE_1" : index
          %36 = pgpu.binary mul %29, %35 : index
          %37 = pgpu.binary add %36, %c0 : index
          %38 = pgpu.iota %37 : !pgpu.fragment<index, [TILE_1]>
          %39 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %40 = pgpu.cmp lt %38, %39 : !pgpu.fragment<index, [TILE_1]>
          %41 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %42 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %43 = pgpu.param "TILE_K" : index
          %44 = pgpu.for %c0 to %8 step %43 iter_args(%42 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %50 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %51 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %52 = pgpu.cmp lt %50, %51 : !pgpu.fragment<index, [TILE_K]>
            %53 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %54 = pgpu.broadcast %50 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %55 = pgpu.broadcast %34 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %56 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %57 = pgpu.binary and %55, %56 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %58 = pgpu.load %a[%53, %54] valid %57 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %59 = pgpu.broadcast %50 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %60 = pgpu.broadcast %38 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %61 = pgpu.broadcast %40 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %62 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %63 = pgpu.binary and %61, %62 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %64 = pgpu.load %b[%59, %60] valid %63 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %65 = pgpu.transpose %64 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %66 = pgpu.contract %58, %65, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %66 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %45 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %46 = pgpu.broadcast %38 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %47 = pgpu.broadcast %34 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %48 = pgpu.broadcast %40 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %49 = pgpu.binary and %47, %48 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %44, %c[%45, %46] valid %49 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Split-K's chunk loop: the contraction's k loop runs over [0, len) of the split's chunk
// COM: (len = max(min(hi, K) - max(lo, 0), 0), no view's extent) and masks k < len. It splits:
// COM: the full blocks load A and B masked only by their M / N bounds (the chunk mask is gone, so the
// COM: provider can read them as boxes of the whole view at lo + k), then the partial block keeps
// COM: the chunk mask; its accumulator carries on from the full blocks. The ticketed sum over the
// COM: splits (a loop without lane masks) is untouched.
// CHECK-LABEL: pgpu.kernel @splitk_chunk
// CHECK: %[[STEP:.*]] = pgpu.param "TILE_K" : index
// CHECK: pgpu.binary sub %[[LEN:.*]], %c0 : index
// CHECK: %[[MID:.*]] = pgpu.binary add %c0, %{{.*}} : index
// CHECK: %[[HEAD:.*]] = pgpu.for %c0 to %[[MID]] step %[[STEP]] iter_args
// CHECK-NOT: pgpu.cmp
// CHECK: pgpu.load %a
// CHECK-NOT: pgpu.cmp
// CHECK: pgpu.load %b
// CHECK-NOT: pgpu.cmp
// CHECK: pgpu.contract
// CHECK: %[[TAIL:.*]] = pgpu.for %[[MID]] to %[[LEN]] step %[[STEP]] iter_args(%[[HEAD]] :
// CHECK: pgpu.cmp lt
// CHECK: pgpu.contract
// CHECK: pgpu.buffer_store %[[TAIL]]
// CHECK: pgpu.last_program
// CHECK: pgpu.for %c0 to %{{.*}} step %c1
// CHECK-NOT: pgpu.for
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @splitk_chunk(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>, %arg0: !pgpu.buffer<f32, [4, M, N], workspace> {pgpu.private = "workspace"}, %arg1: !pgpu.buffer<i32, [M, N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) attributes {params = [#pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_2", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_1", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %c4, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary add %1, %c3 : index
    %10 = pgpu.binary div %9, %c4 : index
    %11 = pgpu.param "TILE_1" : index
    %12 = pgpu.ceil_div %4, %11 : index
    %13 = pgpu.binary mul %8, %12 : index
    %14 = pgpu.param "TILE_2" : index
    %15 = pgpu.ceil_div %6, %14 : index
    %16 = pgpu.binary mul %13, %15 : index
    %17 = pgpu.param "PERSIST" : index
    %18 = pgpu.binary mul %17, %c132 : index
    %19 = pgpu.binary min %16, %18 : index
    %20 = pgpu.binary mul %12, %15 : index
    pgpu.program_space(%19) {
    ^bb0(%arg2: index):
      pgpu.for %arg2 to %16 step %19 {
      ^bb0(%arg3: index):
        pgpu.execution_group %arg3 extents(%8, %20) segment 0 roles ["axis0", "grouped tiles"] {
        ^bb0(%arg4: index, %arg5: index):
          %21 = pgpu.param "GROUP_1" : index
          %22 = pgpu.binary mul %21, %15 : index
          %23 = pgpu.binary div %arg5, %22 : index
          %24 = pgpu.binary mul %23, %21 : index
          %25 = pgpu.binary sub %12, %24 : index
          %26 = pgpu.binary min %25, %21 : index
          %27 = pgpu.binary mul %23, %22 : index
          %28 = pgpu.binary sub %arg5, %27 : index
          %29 = pgpu.binary rem %28, %26 : index
          %30 = pgpu.binary add %24, %29 : index
          %31 = pgpu.binary div %28, %26 : index
          %32 = pgpu.binary mul %30, %11 : index
          %33 = pgpu.iota %32 : !pgpu.fragment<index, [TILE_1]>
          %34 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_1]>
          %35 = pgpu.cmp lt %33, %34 : !pgpu.fragment<index, [TILE_1]>
          %36 = pgpu.binary mul %31, %14 : index
          %37 = pgpu.iota %36 : !pgpu.fragment<index, [TILE_2]>
          %38 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_2]>
          %39 = pgpu.cmp lt %37, %38 : !pgpu.fragment<index, [TILE_2]>
          %40 = pgpu.binary mul %arg4, %10 : index
          %41 = pgpu.binary min %40, %1 : index
          %42 = pgpu.binary add %arg4, %c1 : index
          %43 = pgpu.binary mul %42, %10 : index
          %44 = pgpu.binary min %43, %1 : index
          %45 = pgpu.binary max %41, %c0 : index
          %46 = pgpu.binary min %44, %1 : index
          %47 = pgpu.binary sub %46, %45 : index
          %48 = pgpu.binary max %47, %c0 : index
          %49 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
          %50 = pgpu.param "TILE_K" : index
          %51 = pgpu.for %c0 to %48 step %50 iter_args(%49 : !pgpu.fragment<f32, [TILE_1, TILE_2]>) -> !pgpu.fragment<f32, [TILE_1, TILE_2]> {
          ^bb0(%arg6: index, %arg7: !pgpu.fragment<f32, [TILE_1, TILE_2]>):
            %58 = pgpu.iota %arg6 : !pgpu.fragment<index, [TILE_K]>
            %59 = pgpu.splat %48 : index -> !pgpu.fragment<index, [TILE_K]>
            %60 = pgpu.cmp lt %58, %59 : !pgpu.fragment<index, [TILE_K]>
            %61 = pgpu.splat %45 : index -> !pgpu.fragment<index, [TILE_K]>
            %62 = pgpu.binary add %61, %58 : !pgpu.fragment<index, [TILE_K]>
            %63 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %64 = pgpu.broadcast %62 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %65 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %66 = pgpu.broadcast %60 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %67 = pgpu.binary and %65, %66 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %68 = pgpu.load %a[%63, %64] valid %67 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %69 = pgpu.broadcast %62 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
            %70 = pgpu.broadcast %37 dims [0] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
            %71 = pgpu.broadcast %39 dims [0] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
            %72 = pgpu.broadcast %60 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
            %73 = pgpu.binary and %71, %72 : !pgpu.fragment<i1, [TILE_2, TILE_K]>
            %74 = pgpu.load %b[%69, %70] valid %73 : !pgpu.fragment<i1, [TILE_2, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [TILE_2, TILE_K]>, !pgpu.fragment<index, [TILE_2, TILE_K]>] -> !pgpu.fragment<f16, [TILE_2, TILE_K]>
            %75 = pgpu.transpose %74 [1, 0] : !pgpu.fragment<f16, [TILE_2, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_2]>
            %76 = pgpu.contract %68, %75, %arg7 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_1, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_2]>, !pgpu.fragment<f32, [TILE_1, TILE_2]> -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
            pgpu.yield %76 : !pgpu.fragment<f32, [TILE_1, TILE_2]>
          }
          %52 = pgpu.splat %arg4 : index -> !pgpu.fragment<index, [TILE_1, TILE_2]>
          %53 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
          %54 = pgpu.broadcast %37 dims [1] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
          %55 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
          %56 = pgpu.broadcast %39 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
          %57 = pgpu.binary and %55, %56 : !pgpu.fragment<i1, [TILE_1, TILE_2]>
          pgpu.buffer_store %51, %arg0[%52, %53, %54] valid %57 : !pgpu.fragment<i1, [TILE_1, TILE_2]> : !pgpu.fragment<f32, [TILE_1, TILE_2]>, !pgpu.buffer<f32, [4, M, N], workspace>[!pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>]
          pgpu.last_program %arg1[%32, %36] arrivals %8 : !pgpu.buffer<i32, [M, N], workspace> {
            %58 = pgpu.for %c0 to %8 step %c1 iter_args(%49 : !pgpu.fragment<f32, [TILE_1, TILE_2]>) -> !pgpu.fragment<f32, [TILE_1, TILE_2]> {
            ^bb0(%arg6: index, %arg7: !pgpu.fragment<f32, [TILE_1, TILE_2]>):
              %59 = pgpu.splat %arg6 : index -> !pgpu.fragment<index, [TILE_1, TILE_2]>
              %60 = pgpu.buffer_load %arg0[%59, %53, %54] valid %57 : !pgpu.fragment<i1, [TILE_1, TILE_2]> fill %cst_0 : f32 : !pgpu.buffer<f32, [4, M, N], workspace>[!pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>] -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
              %61 = pgpu.binary add %arg7, %60 : !pgpu.fragment<f32, [TILE_1, TILE_2]>
              pgpu.yield %61 : !pgpu.fragment<f32, [TILE_1, TILE_2]>
            }
            pgpu.store %58, %c[%53, %54] valid %57 : !pgpu.fragment<i1, [TILE_1, TILE_2]> : !pgpu.fragment<f32, [TILE_1, TILE_2]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>]
            pgpu.yield
          }
          pgpu.yield
        } {roles = ["axis0", "grouped tiles"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A row's store walk over the keys (a written softmax of Q K^T, corpus 58): each iteration's
// COM: product starts from a zero splat, the loop carries nothing, so it is no GEMM k loop even though
// COM: its bound is a view's extent (T) and it holds a pgpu.contract. It splits: the full blocks load
// COM: K and store P masked by the rows only (a provider writes whole vectors), then the partial block
// COM: keeps the key mask.
// CHECK-LABEL: pgpu.kernel @store_walk
// CHECK: %[[STEP:.*]] = pgpu.param "BLOCK_T" : index
// CHECK: %[[MID:.*]] = pgpu.binary add %c0, %{{.*}} : index
// CHECK: pgpu.for %c0 to %[[MID]] step %[[STEP]] {
// CHECK-NOT: pgpu.cmp
// CHECK: pgpu.contract
// CHECK-NOT: pgpu.cmp
// CHECK: pgpu.store %{{.*}}, %p[%{{.*}}, %{{.*}}] valid %[[ROWS:[0-9]+]] :
// CHECK: pgpu.for %[[MID]] to %[[T:.*]] step %[[STEP]] {
// CHECK: pgpu.cmp lt
// CHECK: pgpu.contract
// CHECK: pgpu.store
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @store_walk(%q: !pgpu.view<f16, [S, D], in>, %k: !pgpu.view<f16, [T, D], in>, %p: !pgpu.view<f32, [S, T], out>) attributes {params = [#pgpu.param<"BLOCK_S", [16, 32, 64, 128], 64>, #pgpu.param<"BLOCK_T", [16, 32, 64, 128], 64>, #pgpu.param<"BLOCK_D", [16, 32, 64, 128], 64>]} {
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %q[0] : !pgpu.view<f16, [S, D], in>
    %1 = pgpu.extent %k[0] : !pgpu.view<f16, [T, D], in>
    %2 = pgpu.extent %q[1] : !pgpu.view<f16, [S, D], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.param "BLOCK_S" : index
    %10 = pgpu.ceil_div %4, %9 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%10) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %11 = pgpu.param "BLOCK_S" : index
        %12 = pgpu.binary mul %arg1, %11 : index
        %13 = pgpu.iota %12 : !pgpu.fragment<index, [BLOCK_S]>
        %14 = pgpu.splat %4 : index -> !pgpu.fragment<index, [BLOCK_S]>
        %15 = pgpu.cmp lt %13, %14 : !pgpu.fragment<index, [BLOCK_S]>
        %16 = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK_D]>
        %17 = pgpu.splat %8 : index -> !pgpu.fragment<index, [BLOCK_D]>
        %18 = pgpu.cmp lt %16, %17 : !pgpu.fragment<index, [BLOCK_D]>
        %19 = pgpu.broadcast %13 dims [0] : !pgpu.fragment<index, [BLOCK_S]> -> !pgpu.fragment<index, [BLOCK_S, BLOCK_D]>
        %20 = pgpu.broadcast %16 dims [1] : !pgpu.fragment<index, [BLOCK_D]> -> !pgpu.fragment<index, [BLOCK_S, BLOCK_D]>
        %21 = pgpu.broadcast %15 dims [0] : !pgpu.fragment<i1, [BLOCK_S]> -> !pgpu.fragment<i1, [BLOCK_S, BLOCK_D]>
        %22 = pgpu.broadcast %18 dims [1] : !pgpu.fragment<i1, [BLOCK_D]> -> !pgpu.fragment<i1, [BLOCK_S, BLOCK_D]>
        %23 = pgpu.binary and %21, %22 : !pgpu.fragment<i1, [BLOCK_S, BLOCK_D]>
        %24 = pgpu.load %q[%19, %20] valid %23 : !pgpu.fragment<i1, [BLOCK_S, BLOCK_D]> fill %cst : f16 : !pgpu.view<f16, [S, D], in>[!pgpu.fragment<index, [BLOCK_S, BLOCK_D]>, !pgpu.fragment<index, [BLOCK_S, BLOCK_D]>] -> !pgpu.fragment<f16, [BLOCK_S, BLOCK_D]>
        %25 = pgpu.param "BLOCK_T" : index
        pgpu.for %c0 to %6 step %25 {
        ^bb0(%arg2: index):
          %26 = pgpu.iota %arg2 : !pgpu.fragment<index, [BLOCK_T]>
          %27 = pgpu.splat %6 : index -> !pgpu.fragment<index, [BLOCK_T]>
          %28 = pgpu.cmp lt %26, %27 : !pgpu.fragment<index, [BLOCK_T]>
          %29 = pgpu.broadcast %26 dims [0] : !pgpu.fragment<index, [BLOCK_T]> -> !pgpu.fragment<index, [BLOCK_T, BLOCK_D]>
          %30 = pgpu.broadcast %16 dims [1] : !pgpu.fragment<index, [BLOCK_D]> -> !pgpu.fragment<index, [BLOCK_T, BLOCK_D]>
          %31 = pgpu.broadcast %28 dims [0] : !pgpu.fragment<i1, [BLOCK_T]> -> !pgpu.fragment<i1, [BLOCK_T, BLOCK_D]>
          %32 = pgpu.broadcast %18 dims [1] : !pgpu.fragment<i1, [BLOCK_D]> -> !pgpu.fragment<i1, [BLOCK_T, BLOCK_D]>
          %33 = pgpu.binary and %31, %32 : !pgpu.fragment<i1, [BLOCK_T, BLOCK_D]>
          %34 = pgpu.load %k[%29, %30] valid %33 : !pgpu.fragment<i1, [BLOCK_T, BLOCK_D]> fill %cst : f16 : !pgpu.view<f16, [T, D], in>[!pgpu.fragment<index, [BLOCK_T, BLOCK_D]>, !pgpu.fragment<index, [BLOCK_T, BLOCK_D]>] -> !pgpu.fragment<f16, [BLOCK_T, BLOCK_D]>
          %35 = pgpu.transpose %34 [1, 0] : !pgpu.fragment<f16, [BLOCK_T, BLOCK_D]> -> !pgpu.fragment<f16, [BLOCK_D, BLOCK_T]>
          %36 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
          %37 = pgpu.contract %24, %35, %36 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BLOCK_S, BLOCK_D]>, !pgpu.fragment<f16, [BLOCK_D, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]> -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
          %38 = pgpu.broadcast %13 dims [0] : !pgpu.fragment<index, [BLOCK_S]> -> !pgpu.fragment<index, [BLOCK_S, BLOCK_T]>
          %39 = pgpu.broadcast %26 dims [1] : !pgpu.fragment<index, [BLOCK_T]> -> !pgpu.fragment<index, [BLOCK_S, BLOCK_T]>
          %40 = pgpu.broadcast %15 dims [0] : !pgpu.fragment<i1, [BLOCK_S]> -> !pgpu.fragment<i1, [BLOCK_S, BLOCK_T]>
          %41 = pgpu.broadcast %28 dims [1] : !pgpu.fragment<i1, [BLOCK_T]> -> !pgpu.fragment<i1, [BLOCK_S, BLOCK_T]>
          %42 = pgpu.binary and %40, %41 : !pgpu.fragment<i1, [BLOCK_S, BLOCK_T]>
          pgpu.store %37, %p[%38, %39] valid %42 : !pgpu.fragment<i1, [BLOCK_S, BLOCK_T]> : !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>, !pgpu.view<f32, [S, T], out>[!pgpu.fragment<index, [BLOCK_S, BLOCK_T]>, !pgpu.fragment<index, [BLOCK_S, BLOCK_T]>]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
