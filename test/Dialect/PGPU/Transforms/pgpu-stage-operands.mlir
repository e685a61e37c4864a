// RUN: tessel-opt %s -split-input-file -pgpu-stage-operands | FileCheck %s

// COM: Corpus 45's gated activation silu(g) * u is the GEMM's row operand, computed in its K loop for every
// COM: tile of N. Staged: the first programs (before the walk's, in linear order) compute it once per row
// COM: tile and K chunk and store it to workspace, then count themselves (release); the walk's programs wait
// COM: for the count (acquire), the last to pass resets it, and their K loop loads the operand (a plain
// COM: GEMM). Unstaged (OPERAND_PHASES = 1 or one tile of N), the original loop runs (seed 002 §3.2, §3.4).
// CHECK-LABEL: pgpu.kernel @swiglu_down
// CHECK-SAME: %[[WS:[a-z0-9]+]]: !pgpu.buffer<bf16, [STAGED_ROWS, STAGED_COLS], workspace>
// CHECK-SAME: %[[T:[a-z0-9]+]]: !pgpu.buffer<i32, [2], workspace> {pgpu.init = 0 : i32
// CHECK-SAME: #pgpu.param<"OPERAND_PHASES", [1, 2], 2>
// CHECK: pgpu.workspace_extent "STAGED_ROWS"
// CHECK: pgpu.program_space
// CHECK: pgpu.if
// CHECK: pgpu.for
// CHECK: pgpu.unary sigmoid
// CHECK: pgpu.buffer_store %{{.*}}, %[[WS]]
// CHECK: pgpu.atomic_rmw add %{{.*}}, %[[T]][%{{.*}}] {{.*}} order release
// CHECK: } else {
// CHECK: pgpu.while
// CHECK: pgpu.atomic_load %[[T]]{{.*}} order acquire
// CHECK: pgpu.atomic_store
// CHECK: pgpu.atomic_store
// CHECK: pgpu.execution_group
// CHECK: pgpu.if
// CHECK: pgpu.for
// CHECK-NOT: pgpu.unary sigmoid
// CHECK-NOT: pgpu.load %g
// CHECK: %[[A:.*]] = pgpu.buffer_load %[[WS]]
// CHECK-NEXT: pgpu.contract %[[A]]
// CHECK: } else {
// CHECK: pgpu.unary sigmoid
// CHECK: pgpu.contract
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @swiglu_down(%g: !pgpu.view<bf16, [M, F], in>, %u: !pgpu.view<bf16, [M, F], in>, %w: !pgpu.view<bf16, [F, N], in>, %y: !pgpu.view<bf16, [M, N], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %g[0] : !pgpu.view<bf16, [M, F], in>
    %1 = pgpu.extent %g[1] : !pgpu.view<bf16, [M, F], in>
    %2 = pgpu.extent %w[1] : !pgpu.view<bf16, [F, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %4, %6 : index
    %10 = pgpu.param "TILE_0" : index
    %11 = pgpu.ceil_div %4, %10 : index
    %12 = pgpu.param "TILE_1" : index
    %13 = pgpu.ceil_div %6, %12 : index
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
          %c1_1 = arith.constant 1 : index
          %23 = pgpu.binary sub %11, %22 : index
          %24 = pgpu.binary min %23, %19 : index
          %25 = pgpu.binary max %24, %c1_1 : index
          %26 = pgpu.binary mul %21, %20 : index
          %27 = pgpu.binary sub %arg2, %26 : index
          %28 = pgpu.binary rem %27, %25 : index
          %29 = pgpu.binary add %22, %28 : index
          %30 = pgpu.binary div %27, %25 : index
          %31 = pgpu.param "TILE_0" : index
          %32 = pgpu.binary mul %29, %31 : index
          %33 = pgpu.iota %32 : !pgpu.fragment<index, [TILE_0]>
          %34 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %35 = pgpu.cmp lt %33, %34 : !pgpu.fragment<index, [TILE_0]>
          %36 = pgpu.param "TILE_1" : index
          %37 = pgpu.binary mul %30, %36 : index
          %38 = pgpu.iota %37 : !pgpu.fragment<index, [TILE_1]>
          %39 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %40 = pgpu.cmp lt %38, %39 : !pgpu.fragment<index, [TILE_1]>
          %41 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %42 = pgpu.param "TILE_K" : index
          %43 = pgpu.for %c0 to %8 step %42 iter_args(%41 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %50 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %51 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %52 = pgpu.cmp lt %50, %51 : !pgpu.fragment<index, [TILE_K]>
            %53 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %54 = pgpu.broadcast %50 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %55 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %56 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %57 = pgpu.binary and %55, %56 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %58 = pgpu.load %g[%53, %54] valid %57 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [M, F], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %59 = pgpu.cast %58 : !pgpu.fragment<bf16, [TILE_0, TILE_K]> to !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %60 = pgpu.unary sigmoid %59 : !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %61 = pgpu.binary mul %59, %60 : !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %62 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %63 = pgpu.broadcast %50 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %64 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %65 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %66 = pgpu.binary and %64, %65 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %67 = pgpu.load %u[%62, %63] valid %66 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [M, F], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %68 = pgpu.cast %67 : !pgpu.fragment<bf16, [TILE_0, TILE_K]> to !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %69 = pgpu.binary mul %61, %68 : !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %70 = pgpu.cast %69 : !pgpu.fragment<f32, [TILE_0, TILE_K]> to !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %71 = pgpu.broadcast %50 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %72 = pgpu.broadcast %38 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %73 = pgpu.broadcast %40 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %74 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %75 = pgpu.binary and %73, %74 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %76 = pgpu.load %w[%71, %72] valid %75 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [F, N], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_1, TILE_K]>
            %cst_2 = arith.constant 0.000000e+00 : bf16
            %77 = pgpu.splat %cst_2 : bf16 -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %78 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %79 = pgpu.select %78, %70, %77 : !pgpu.fragment<i1, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %80 = pgpu.transpose %76 [1, 0] : !pgpu.fragment<bf16, [TILE_1, TILE_K]> -> !pgpu.fragment<bf16, [TILE_K, TILE_1]>
            %81 = pgpu.contract %79, %80, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %81 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %44 = pgpu.cast %43 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<bf16, [TILE_0, TILE_1]>
          %45 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %46 = pgpu.broadcast %38 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %47 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %48 = pgpu.broadcast %40 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %49 = pgpu.binary and %47, %48 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %44, %y[%45, %46] valid %49 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<bf16, [TILE_0, TILE_1]>, !pgpu.view<bf16, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
          pgpu.yield
        } {roles = ["grouped tiles"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not fire: the row operand is a masked load (a plain GEMM), nothing is recomputed per tile.
// CHECK-LABEL: pgpu.kernel @plain_gemm
// CHECK-NOT: STAGED_ROWS
// CHECK-NOT: pgpu.buffer_load
// CHECK: pgpu.program_space
// CHECK-NOT: pgpu.while
// CHECK: pgpu.contract
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @plain_gemm(%g: !pgpu.view<bf16, [M, F], in>, %u: !pgpu.view<bf16, [M, F], in>, %w: !pgpu.view<bf16, [F, N], in>, %y: !pgpu.view<bf16, [M, N], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %g[0] : !pgpu.view<bf16, [M, F], in>
    %1 = pgpu.extent %g[1] : !pgpu.view<bf16, [M, F], in>
    %2 = pgpu.extent %w[1] : !pgpu.view<bf16, [F, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %4, %6 : index
    %10 = pgpu.param "TILE_0" : index
    %11 = pgpu.ceil_div %4, %10 : index
    %12 = pgpu.param "TILE_1" : index
    %13 = pgpu.ceil_div %6, %12 : index
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
          %c1_1 = arith.constant 1 : index
          %23 = pgpu.binary sub %11, %22 : index
          %24 = pgpu.binary min %23, %19 : index
          %25 = pgpu.binary max %24, %c1_1 : index
          %26 = pgpu.binary mul %21, %20 : index
          %27 = pgpu.binary sub %arg2, %26 : index
          %28 = pgpu.binary rem %27, %25 : index
          %29 = pgpu.binary add %22, %28 : index
          %30 = pgpu.binary div %27, %25 : index
          %31 = pgpu.param "TILE_0" : index
          %32 = pgpu.binary mul %29, %31 : index
          %33 = pgpu.iota %32 : !pgpu.fragment<index, [TILE_0]>
          %34 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %35 = pgpu.cmp lt %33, %34 : !pgpu.fragment<index, [TILE_0]>
          %36 = pgpu.param "TILE_1" : index
          %37 = pgpu.binary mul %30, %36 : index
          %38 = pgpu.iota %37 : !pgpu.fragment<index, [TILE_1]>
          %39 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %40 = pgpu.cmp lt %38, %39 : !pgpu.fragment<index, [TILE_1]>
          %41 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %42 = pgpu.param "TILE_K" : index
          %43 = pgpu.for %c0 to %8 step %42 iter_args(%41 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %50 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %51 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %52 = pgpu.cmp lt %50, %51 : !pgpu.fragment<index, [TILE_K]>
            %53 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %54 = pgpu.broadcast %50 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %55 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %56 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %57 = pgpu.binary and %55, %56 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %58 = pgpu.load %g[%53, %54] valid %57 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [M, F], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %59 = pgpu.cast %58 : !pgpu.fragment<bf16, [TILE_0, TILE_K]> to !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %60 = pgpu.unary sigmoid %59 : !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %61 = pgpu.binary mul %59, %60 : !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %62 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %63 = pgpu.broadcast %50 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %64 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %65 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %66 = pgpu.binary and %64, %65 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %67 = pgpu.load %u[%62, %63] valid %66 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [M, F], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %68 = pgpu.cast %67 : !pgpu.fragment<bf16, [TILE_0, TILE_K]> to !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %69 = pgpu.binary mul %61, %68 : !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %70 = pgpu.cast %69 : !pgpu.fragment<f32, [TILE_0, TILE_K]> to !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %71 = pgpu.broadcast %50 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %72 = pgpu.broadcast %38 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %73 = pgpu.broadcast %40 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %74 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %75 = pgpu.binary and %73, %74 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %76 = pgpu.load %w[%71, %72] valid %75 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [F, N], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_1, TILE_K]>
            %cst_2 = arith.constant 0.000000e+00 : bf16
            %77 = pgpu.splat %cst_2 : bf16 -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %78 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %79 = pgpu.select %78, %58, %77 : !pgpu.fragment<i1, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %80 = pgpu.transpose %76 [1, 0] : !pgpu.fragment<bf16, [TILE_1, TILE_K]> -> !pgpu.fragment<bf16, [TILE_K, TILE_1]>
            %81 = pgpu.contract %79, %80, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %81 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %44 = pgpu.cast %43 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<bf16, [TILE_0, TILE_1]>
          %45 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %46 = pgpu.broadcast %38 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %47 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %48 = pgpu.broadcast %40 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %49 = pgpu.binary and %47, %48 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %44, %y[%45, %46] valid %49 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<bf16, [TILE_0, TILE_1]>, !pgpu.view<bf16, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
          pgpu.yield
        } {roles = ["grouped tiles"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}



// -----

// COM: Corpus 272's two-layer MLP: the second GEMM's row operand is gelu(x @ W1 + b1), a contraction's tile
// COM: computed by an inner K loop (over D) in the outer one (over F), for every tile of the output's D.
// COM: Staged: the first programs run that inner K loop once per row tile and F tile and store the bf16
// COM: operand; the walk's loop over F loads it (a plain GEMM; no inner loop, no erf). The launch-uniform cost
// COM: rule stages where the recompute, (reuse - 1) * 2 * D FLOPs an element, reaches 64 FLOPs a byte of the
// COM: workspace round trip, (reuse + 1) * 2 bytes: not for one D tile (reuse 1) or a short D.
// CHECK-LABEL: pgpu.kernel @mlp_gelu_two_layer
// CHECK-SAME: %[[WS:[a-z0-9]+]]: !pgpu.buffer<bf16, [STAGED_ROWS, STAGED_COLS], workspace>
// CHECK-SAME: #pgpu.param<"OPERAND_PHASES", [1, 2], 2>
// CHECK: %[[REUSE:[0-9]+]] = pgpu.binary div
// CHECK: %[[PHASES:[0-9]+]] = pgpu.binary and
// CHECK: %[[FLOPS:[0-9]+]] = pgpu.binary mul %{{[0-9]+}}, %{{[0-9]+}} : index
// CHECK: %[[PLUS:[0-9]+]] = pgpu.binary add %[[REUSE]], %{{.*}} : index
// CHECK: %[[BYTES:[0-9]+]] = pgpu.binary mul %[[PLUS]], %c128 : index
// CHECK: %[[PAYS:[0-9]+]] = pgpu.cmp ge %[[FLOPS]], %[[BYTES]] : index
// CHECK: %[[ON:[0-9]+]] = pgpu.binary and %[[PHASES]], %[[PAYS]] : i1
// CHECK: pgpu.workspace_extent "STAGED_ROWS"
// CHECK: pgpu.program_space
// CHECK: pgpu.if
// CHECK: pgpu.for
// CHECK: pgpu.for
// CHECK: pgpu.contract
// CHECK: pgpu.unary erf
// CHECK: pgpu.buffer_store %{{.*}}, %[[WS]]
// CHECK: } else {
// CHECK: pgpu.while
// CHECK: pgpu.execution_group
// CHECK: pgpu.if %[[ON]]
// CHECK-NEXT: pgpu.for
// CHECK-NOT: pgpu.unary erf
// CHECK-NOT: pgpu.load %x
// CHECK: %[[A:.*]] = pgpu.buffer_load %[[WS]]
// CHECK-NEXT: pgpu.contract %[[A]]
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: pgpu.for
// CHECK: pgpu.load %x
// CHECK: pgpu.unary erf
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @mlp_gelu_two_layer(%x: !pgpu.view<bf16, [M, D], in>, %w1: !pgpu.view<bf16, [D, F], in>, %b1: !pgpu.view<f32, [F], in>, %w2: !pgpu.view<bf16, [F, D], in>, %b2: !pgpu.view<f32, [D], in>, %y: !pgpu.view<bf16, [M, D], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_2", [16, 32, 64, 128], 64>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 0.707106769 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [M, D], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<bf16, [M, D], in>
    %2 = pgpu.extent %w1[1] : !pgpu.view<bf16, [D, F], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %4, %6 : index
    %10 = pgpu.param "TILE_0" : index
    %11 = pgpu.ceil_div %4, %10 : index
    %12 = pgpu.param "TILE_1" : index
    %13 = pgpu.ceil_div %6, %12 : index
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
          %c1_4 = arith.constant 1 : index
          %23 = pgpu.binary sub %11, %22 : index
          %24 = pgpu.binary min %23, %19 : index
          %25 = pgpu.binary max %24, %c1_4 : index
          %26 = pgpu.binary mul %21, %20 : index
          %27 = pgpu.binary sub %arg2, %26 : index
          %28 = pgpu.binary rem %27, %25 : index
          %29 = pgpu.binary add %22, %28 : index
          %30 = pgpu.binary div %27, %25 : index
          %31 = pgpu.param "TILE_0" : index
          %32 = pgpu.binary mul %29, %31 : index
          %33 = pgpu.iota %32 : !pgpu.fragment<index, [TILE_0]>
          %34 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %35 = pgpu.cmp lt %33, %34 : !pgpu.fragment<index, [TILE_0]>
          %36 = pgpu.param "TILE_1" : index
          %37 = pgpu.binary mul %30, %36 : index
          %38 = pgpu.iota %37 : !pgpu.fragment<index, [TILE_1]>
          %39 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %40 = pgpu.cmp lt %38, %39 : !pgpu.fragment<index, [TILE_1]>
          %41 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %42 = pgpu.param "TILE_2" : index
          %43 = pgpu.for %c0 to %8 step %42 iter_args(%41 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %53 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_2]>
            %54 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_2]>
            %55 = pgpu.cmp lt %53, %54 : !pgpu.fragment<index, [TILE_2]>
            %56 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %57 = pgpu.param "TILE_K" : index
            %58 = pgpu.for %c0 to %6 step %57 iter_args(%56 : !pgpu.fragment<f32, [TILE_0, TILE_2]>) -> !pgpu.fragment<f32, [TILE_0, TILE_2]> {
            ^bb0(%arg5: index, %arg6: !pgpu.fragment<f32, [TILE_0, TILE_2]>):
              %82 = pgpu.iota %arg5 : !pgpu.fragment<index, [TILE_K]>
              %83 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_K]>
              %84 = pgpu.cmp lt %82, %83 : !pgpu.fragment<index, [TILE_K]>
              %85 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
              %86 = pgpu.broadcast %82 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
              %87 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
              %88 = pgpu.broadcast %84 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
              %89 = pgpu.binary and %87, %88 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
              %90 = pgpu.load %x[%85, %86] valid %89 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [M, D], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
              %91 = pgpu.broadcast %82 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
              %92 = pgpu.broadcast %53 dims [0] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
              %93 = pgpu.broadcast %55 dims [0] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
              %94 = pgpu.broadcast %84 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
              %95 = pgpu.binary and %93, %94 : !pgpu.fragment<i1, [TILE_2, TILE_K]>
              %96 = pgpu.load %w1[%91, %92] valid %95 : !pgpu.fragment<i1, [TILE_2, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [D, F], in>[!pgpu.fragment<index, [TILE_2, TILE_K]>, !pgpu.fragment<index, [TILE_2, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_2, TILE_K]>
              %97 = pgpu.transpose %96 [1, 0] : !pgpu.fragment<bf16, [TILE_2, TILE_K]> -> !pgpu.fragment<bf16, [TILE_K, TILE_2]>
              %98 = pgpu.contract %90, %97, %arg6 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_2]>, !pgpu.fragment<f32, [TILE_0, TILE_2]> -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
              pgpu.yield %98 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            }
            %59 = pgpu.load %b1[%53] valid %55 : !pgpu.fragment<i1, [TILE_2]> fill %cst_0 : f32 : !pgpu.view<f32, [F], in>[!pgpu.fragment<index, [TILE_2]>] -> !pgpu.fragment<f32, [TILE_2]>
            %60 = pgpu.broadcast %59 dims [1] : !pgpu.fragment<f32, [TILE_2]> -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %61 = pgpu.binary add %60, %58 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %62 = pgpu.splat %cst_3 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %63 = pgpu.binary mul %61, %62 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %64 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %65 = pgpu.binary mul %61, %64 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %66 = pgpu.unary erf %65 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %67 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %68 = pgpu.binary add %67, %66 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %69 = pgpu.binary mul %63, %68 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %70 = pgpu.cast %69 : !pgpu.fragment<f32, [TILE_0, TILE_2]> to !pgpu.fragment<bf16, [TILE_0, TILE_2]>
            %71 = pgpu.broadcast %53 dims [1] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
            %72 = pgpu.broadcast %38 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
            %73 = pgpu.broadcast %40 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
            %74 = pgpu.broadcast %55 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
            %75 = pgpu.binary and %73, %74 : !pgpu.fragment<i1, [TILE_1, TILE_2]>
            %76 = pgpu.load %w2[%71, %72] valid %75 : !pgpu.fragment<i1, [TILE_1, TILE_2]> fill %cst : bf16 : !pgpu.view<bf16, [F, D], in>[!pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>] -> !pgpu.fragment<bf16, [TILE_1, TILE_2]>
            %cst_5 = arith.constant 0.000000e+00 : bf16
            %77 = pgpu.splat %cst_5 : bf16 -> !pgpu.fragment<bf16, [TILE_0, TILE_2]>
            %78 = pgpu.broadcast %55 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_0, TILE_2]>
            %79 = pgpu.select %78, %70, %77 : !pgpu.fragment<i1, [TILE_0, TILE_2]>, !pgpu.fragment<bf16, [TILE_0, TILE_2]>
            %80 = pgpu.transpose %76 [1, 0] : !pgpu.fragment<bf16, [TILE_1, TILE_2]> -> !pgpu.fragment<bf16, [TILE_2, TILE_1]>
            %81 = pgpu.contract %79, %80, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_2]>, !pgpu.fragment<bf16, [TILE_2, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %81 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %44 = pgpu.load %b2[%38] valid %40 : !pgpu.fragment<i1, [TILE_1]> fill %cst_0 : f32 : !pgpu.view<f32, [D], in>[!pgpu.fragment<index, [TILE_1]>] -> !pgpu.fragment<f32, [TILE_1]>
          %45 = pgpu.broadcast %44 dims [1] : !pgpu.fragment<f32, [TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %46 = pgpu.binary add %45, %43 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %47 = pgpu.cast %46 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<bf16, [TILE_0, TILE_1]>
          %48 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %49 = pgpu.broadcast %38 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %50 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %51 = pgpu.broadcast %40 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %52 = pgpu.binary and %50, %51 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %47, %y[%48, %49] valid %52 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<bf16, [TILE_0, TILE_1]>, !pgpu.view<bf16, [M, D], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
          pgpu.yield
        } {roles = ["grouped tiles"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}



// -----

// COM: Must not fire: the inner contraction's K is the constant 16, so an element's recompute (32 FLOPs) never
// COM: reaches its workspace round trip at 64 FLOPs a byte (4 bytes and more) for any tile count of N.
// CHECK-LABEL: pgpu.kernel @staged_short_mlp
// CHECK-NOT: STAGED_ROWS
// CHECK-NOT: OPERAND_PHASES
// CHECK-NOT: pgpu.buffer_load
// CHECK: pgpu.program_space
// CHECK-NOT: pgpu.while
// CHECK: pgpu.for
// CHECK: pgpu.for
// CHECK: pgpu.contract
// CHECK: pgpu.unary erf
// CHECK: pgpu.contract
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @staged_short_mlp(%x: !pgpu.view<bf16, [M, 16], in>, %w1: !pgpu.view<bf16, [16, F], in>, %w2: !pgpu.view<bf16, [F, N], in>, %y: !pgpu.view<f32, [M, N], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_2", [16, 32, 64, 128], 64>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 0.707106769 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %c16 = arith.constant 16 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [M, 16], in>
    %1 = pgpu.extent %w1[1] : !pgpu.view<bf16, [16, F], in>
    %2 = pgpu.extent %w2[1] : !pgpu.view<bf16, [F, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %c16, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.ceil_div %2, %c1 : index
    %10 = pgpu.binary max %9, %c0 : index
    %11 = pgpu.binary mul %4, %10 : index
    %12 = pgpu.param "TILE_0" : index
    %13 = pgpu.ceil_div %4, %12 : index
    %14 = pgpu.param "TILE_1" : index
    %15 = pgpu.ceil_div %10, %14 : index
    %16 = pgpu.binary mul %13, %15 : index
    %17 = pgpu.param "PERSIST" : index
    %c132 = arith.constant 132 : index
    %18 = pgpu.binary mul %17, %c132 : index
    %19 = pgpu.binary min %16, %18 : index
    %20 = pgpu.binary mul %13, %15 : index
    pgpu.program_space(%19) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %16 step %19 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%20) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %21 = pgpu.param "GROUP_0" : index
          %22 = pgpu.binary mul %21, %15 : index
          %23 = pgpu.binary div %arg2, %22 : index
          %24 = pgpu.binary mul %23, %21 : index
          %c1_4 = arith.constant 1 : index
          %25 = pgpu.binary sub %13, %24 : index
          %26 = pgpu.binary min %25, %21 : index
          %27 = pgpu.binary max %26, %c1_4 : index
          %28 = pgpu.binary mul %23, %22 : index
          %29 = pgpu.binary sub %arg2, %28 : index
          %30 = pgpu.binary rem %29, %27 : index
          %31 = pgpu.binary add %24, %30 : index
          %32 = pgpu.binary div %29, %27 : index
          %33 = pgpu.param "TILE_0" : index
          %34 = pgpu.binary mul %31, %33 : index
          %35 = pgpu.iota %34 : !pgpu.fragment<index, [TILE_0]>
          %36 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %37 = pgpu.cmp lt %35, %36 : !pgpu.fragment<index, [TILE_0]>
          %38 = pgpu.param "TILE_1" : index
          %39 = pgpu.binary mul %32, %38 : index
          %40 = pgpu.iota %39 : !pgpu.fragment<index, [TILE_1]>
          %41 = pgpu.splat %10 : index -> !pgpu.fragment<index, [TILE_1]>
          %42 = pgpu.cmp lt %40, %41 : !pgpu.fragment<index, [TILE_1]>
          %43 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %44 = pgpu.param "TILE_2" : index
          %45 = pgpu.for %c0 to %8 step %44 iter_args(%43 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %51 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_2]>
            %52 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_2]>
            %53 = pgpu.cmp lt %51, %52 : !pgpu.fragment<index, [TILE_2]>
            %54 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %55 = pgpu.param "TILE_K" : index
            %56 = pgpu.for %c0 to %6 step %55 iter_args(%54 : !pgpu.fragment<f32, [TILE_0, TILE_2]>) -> !pgpu.fragment<f32, [TILE_0, TILE_2]> {
            ^bb0(%arg5: index, %arg6: !pgpu.fragment<f32, [TILE_0, TILE_2]>):
              %77 = pgpu.iota %arg5 : !pgpu.fragment<index, [TILE_K]>
              %78 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_K]>
              %79 = pgpu.cmp lt %77, %78 : !pgpu.fragment<index, [TILE_K]>
              %80 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
              %81 = pgpu.broadcast %77 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
              %82 = pgpu.broadcast %37 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
              %83 = pgpu.broadcast %79 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
              %84 = pgpu.binary and %82, %83 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
              %85 = pgpu.load %x[%80, %81] valid %84 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [M, 16], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
              %86 = pgpu.broadcast %77 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
              %87 = pgpu.broadcast %51 dims [0] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
              %88 = pgpu.broadcast %53 dims [0] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
              %89 = pgpu.broadcast %79 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
              %90 = pgpu.binary and %88, %89 : !pgpu.fragment<i1, [TILE_2, TILE_K]>
              %91 = pgpu.load %w1[%86, %87] valid %90 : !pgpu.fragment<i1, [TILE_2, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [16, F], in>[!pgpu.fragment<index, [TILE_2, TILE_K]>, !pgpu.fragment<index, [TILE_2, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_2, TILE_K]>
              %92 = pgpu.transpose %91 [1, 0] : !pgpu.fragment<bf16, [TILE_2, TILE_K]> -> !pgpu.fragment<bf16, [TILE_K, TILE_2]>
              %93 = pgpu.contract %85, %92, %arg6 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_2]>, !pgpu.fragment<f32, [TILE_0, TILE_2]> -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
              pgpu.yield %93 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            }
            %57 = pgpu.splat %cst_3 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %58 = pgpu.binary mul %56, %57 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %59 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %60 = pgpu.binary mul %56, %59 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %61 = pgpu.unary erf %60 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %62 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %63 = pgpu.binary add %62, %61 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %64 = pgpu.binary mul %58, %63 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
            %65 = pgpu.cast %64 : !pgpu.fragment<f32, [TILE_0, TILE_2]> to !pgpu.fragment<bf16, [TILE_0, TILE_2]>
            %66 = pgpu.broadcast %51 dims [1] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
            %67 = pgpu.broadcast %40 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
            %68 = pgpu.broadcast %42 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
            %69 = pgpu.broadcast %53 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
            %70 = pgpu.binary and %68, %69 : !pgpu.fragment<i1, [TILE_1, TILE_2]>
            %71 = pgpu.load %w2[%66, %67] valid %70 : !pgpu.fragment<i1, [TILE_1, TILE_2]> fill %cst : bf16 : !pgpu.view<bf16, [F, N], in>[!pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>] -> !pgpu.fragment<bf16, [TILE_1, TILE_2]>
            %cst_5 = arith.constant 0.000000e+00 : bf16
            %72 = pgpu.splat %cst_5 : bf16 -> !pgpu.fragment<bf16, [TILE_0, TILE_2]>
            %73 = pgpu.broadcast %53 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_0, TILE_2]>
            %74 = pgpu.select %73, %65, %72 : !pgpu.fragment<i1, [TILE_0, TILE_2]>, !pgpu.fragment<bf16, [TILE_0, TILE_2]>
            %75 = pgpu.transpose %71 [1, 0] : !pgpu.fragment<bf16, [TILE_1, TILE_2]> -> !pgpu.fragment<bf16, [TILE_2, TILE_1]>
            %76 = pgpu.contract %74, %75, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_2]>, !pgpu.fragment<bf16, [TILE_2, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %76 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %46 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %47 = pgpu.broadcast %40 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %48 = pgpu.broadcast %37 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %49 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %50 = pgpu.binary and %48, %49 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %45, %y[%46, %47] valid %50 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
          pgpu.yield
        } {roles = ["grouped tiles"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}



// -----

// COM: A batched chain, y[b] = cast(x[b] x[b]^T) x[b] (the Gram product Muon's Newton-Schulz step starts
// COM: with): the row operand is the inner product's tile, which reads the group's batch coordinate besides
// COM: its row tile. Staged per batch point: the first phase's programs run over the points' row tiles
// COM: (point-major), the point decoded from the program and its rows stored in their own block of the
// COM: workspace [B * M, M padded]; the walk's staged K loop loads at its own batch coordinate's block.
// CHECK-LABEL: pgpu.kernel @staged_batched_gram
// CHECK-SAME: %[[WS:[a-z0-9]+]]: !pgpu.buffer<bf16, [STAGED_ROWS, STAGED_COLS], workspace>
// CHECK: %[[E:[0-9]+]] = pgpu.extent %x[1]
// CHECK: %[[MC:[0-9]+]] = pgpu.ceil_div %[[E]]
// CHECK-NEXT: %[[M:[0-9]+]] = pgpu.binary max %[[MC]]
// CHECK: pgpu.workspace_extent "STAGED_ROWS"
// CHECK: pgpu.program_space
// CHECK: pgpu.if
// CHECK: %[[PT:[0-9]+]] = pgpu.binary div %arg{{[0-9]+}}, %{{[0-9]+}} : index
// CHECK-NEXT: pgpu.binary rem
// CHECK-NEXT: %[[POINT:[0-9]+]] = pgpu.binary div %[[PT]], %{{[0-9]+}} : index
// CHECK-NEXT: pgpu.binary rem %[[PT]]
// CHECK-NEXT: %[[BASE:[0-9]+]] = pgpu.binary mul %[[POINT]], %[[M]] : index
// CHECK: pgpu.for
// CHECK: pgpu.for
// CHECK: pgpu.splat %[[POINT]] : index -> !pgpu.fragment<index, [TILE_1, TILE_K]>
// CHECK: pgpu.contract
// CHECK: pgpu.splat %[[BASE]] : index -> !pgpu.fragment<index, [TILE_1]>
// CHECK: pgpu.buffer_store %{{.*}}, %[[WS]]
// CHECK: } else {
// CHECK: pgpu.while
// CHECK: pgpu.execution_group
// CHECK-NEXT: ^bb0(%[[B:[a-z0-9]+]]: index, %{{[a-z0-9]+}}: index):
// CHECK: %[[WBASE:[0-9]+]] = pgpu.binary mul %[[B]], %[[M]] : index
// CHECK: pgpu.splat %[[WBASE]] : index -> !pgpu.fragment<index, [TILE_1]>
// CHECK: pgpu.buffer_load %[[WS]]
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @staged_batched_gram(%x: !pgpu.view<bf16, [B, M, N], in>, %y: !pgpu.view<f32, [B, M, N], out>) attributes {params = [#pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_2", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_3", [16, 32, 64, 128], 64>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_1", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [B, M, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<bf16, [B, M, N], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<bf16, [B, M, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %4, %6 : index
    %10 = pgpu.binary mul %9, %8 : index
    %11 = pgpu.param "TILE_1" : index
    %12 = pgpu.ceil_div %6, %11 : index
    %13 = pgpu.binary mul %4, %12 : index
    %14 = pgpu.param "TILE_2" : index
    %15 = pgpu.ceil_div %8, %14 : index
    %16 = pgpu.binary mul %13, %15 : index
    %17 = pgpu.param "PERSIST" : index
    %c132 = arith.constant 132 : index
    %18 = pgpu.binary mul %17, %c132 : index
    %19 = pgpu.binary min %16, %18 : index
    %20 = pgpu.binary mul %12, %15 : index
    pgpu.program_space(%19) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %16 step %19 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%4, %20) segment 0 roles ["axis0", "grouped tiles"] {
        ^bb0(%arg2: index, %arg3: index):
          %21 = pgpu.param "GROUP_1" : index
          %22 = pgpu.binary mul %21, %15 : index
          %23 = pgpu.binary div %arg3, %22 : index
          %24 = pgpu.binary mul %23, %21 : index
          %c1_1 = arith.constant 1 : index
          %25 = pgpu.binary sub %12, %24 : index
          %26 = pgpu.binary min %25, %21 : index
          %27 = pgpu.binary max %26, %c1_1 : index
          %28 = pgpu.binary mul %23, %22 : index
          %29 = pgpu.binary sub %arg3, %28 : index
          %30 = pgpu.binary rem %29, %27 : index
          %31 = pgpu.binary add %24, %30 : index
          %32 = pgpu.binary div %29, %27 : index
          %33 = pgpu.param "TILE_1" : index
          %34 = pgpu.binary mul %31, %33 : index
          %35 = pgpu.iota %34 : !pgpu.fragment<index, [TILE_1]>
          %36 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %37 = pgpu.cmp lt %35, %36 : !pgpu.fragment<index, [TILE_1]>
          %38 = pgpu.param "TILE_2" : index
          %39 = pgpu.binary mul %32, %38 : index
          %40 = pgpu.iota %39 : !pgpu.fragment<index, [TILE_2]>
          %41 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_2]>
          %42 = pgpu.cmp lt %40, %41 : !pgpu.fragment<index, [TILE_2]>
          %43 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
          %44 = pgpu.param "TILE_3" : index
          %45 = pgpu.for %c0 to %6 step %44 iter_args(%43 : !pgpu.fragment<f32, [TILE_1, TILE_2]>) -> !pgpu.fragment<f32, [TILE_1, TILE_2]> {
          ^bb0(%arg4: index, %arg5: !pgpu.fragment<f32, [TILE_1, TILE_2]>):
            %52 = pgpu.iota %arg4 : !pgpu.fragment<index, [TILE_3]>
            %53 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_3]>
            %54 = pgpu.cmp lt %52, %53 : !pgpu.fragment<index, [TILE_3]>
            %55 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_1, TILE_3]>
            %56 = pgpu.param "TILE_K" : index
            %57 = pgpu.for %c0 to %8 step %56 iter_args(%55 : !pgpu.fragment<f32, [TILE_1, TILE_3]>) -> !pgpu.fragment<f32, [TILE_1, TILE_3]> {
            ^bb0(%arg6: index, %arg7: !pgpu.fragment<f32, [TILE_1, TILE_3]>):
              %71 = pgpu.iota %arg6 : !pgpu.fragment<index, [TILE_K]>
              %72 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
              %73 = pgpu.cmp lt %71, %72 : !pgpu.fragment<index, [TILE_K]>
              %74 = pgpu.splat %arg2 : index -> !pgpu.fragment<index, [TILE_1, TILE_K]>
              %75 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
              %76 = pgpu.broadcast %71 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
              %77 = pgpu.broadcast %37 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
              %78 = pgpu.broadcast %73 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
              %79 = pgpu.binary and %77, %78 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
              %80 = pgpu.load %x[%74, %75, %76] valid %79 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_1, TILE_K]>
              %81 = pgpu.splat %arg2 : index -> !pgpu.fragment<index, [TILE_3, TILE_K]>
              %82 = pgpu.broadcast %52 dims [0] : !pgpu.fragment<index, [TILE_3]> -> !pgpu.fragment<index, [TILE_3, TILE_K]>
              %83 = pgpu.broadcast %71 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_3, TILE_K]>
              %84 = pgpu.broadcast %54 dims [0] : !pgpu.fragment<i1, [TILE_3]> -> !pgpu.fragment<i1, [TILE_3, TILE_K]>
              %85 = pgpu.broadcast %73 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_3, TILE_K]>
              %86 = pgpu.binary and %84, %85 : !pgpu.fragment<i1, [TILE_3, TILE_K]>
              %87 = pgpu.load %x[%81, %82, %83] valid %86 : !pgpu.fragment<i1, [TILE_3, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[!pgpu.fragment<index, [TILE_3, TILE_K]>, !pgpu.fragment<index, [TILE_3, TILE_K]>, !pgpu.fragment<index, [TILE_3, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_3, TILE_K]>
              %88 = pgpu.transpose %87 [1, 0] : !pgpu.fragment<bf16, [TILE_3, TILE_K]> -> !pgpu.fragment<bf16, [TILE_K, TILE_3]>
              %89 = pgpu.contract %80, %88, %arg7 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_1, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_3]>, !pgpu.fragment<f32, [TILE_1, TILE_3]> -> !pgpu.fragment<f32, [TILE_1, TILE_3]>
              pgpu.yield %89 : !pgpu.fragment<f32, [TILE_1, TILE_3]>
            }
            %58 = pgpu.cast %57 : !pgpu.fragment<f32, [TILE_1, TILE_3]> to !pgpu.fragment<bf16, [TILE_1, TILE_3]>
            %59 = pgpu.splat %arg2 : index -> !pgpu.fragment<index, [TILE_2, TILE_3]>
            %60 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<index, [TILE_3]> -> !pgpu.fragment<index, [TILE_2, TILE_3]>
            %61 = pgpu.broadcast %40 dims [0] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_2, TILE_3]>
            %62 = pgpu.broadcast %42 dims [0] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_2, TILE_3]>
            %63 = pgpu.broadcast %54 dims [1] : !pgpu.fragment<i1, [TILE_3]> -> !pgpu.fragment<i1, [TILE_2, TILE_3]>
            %64 = pgpu.binary and %62, %63 : !pgpu.fragment<i1, [TILE_2, TILE_3]>
            %65 = pgpu.load %x[%59, %60, %61] valid %64 : !pgpu.fragment<i1, [TILE_2, TILE_3]> fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[!pgpu.fragment<index, [TILE_2, TILE_3]>, !pgpu.fragment<index, [TILE_2, TILE_3]>, !pgpu.fragment<index, [TILE_2, TILE_3]>] -> !pgpu.fragment<bf16, [TILE_2, TILE_3]>
            %cst_2 = arith.constant 0.000000e+00 : bf16
            %66 = pgpu.splat %cst_2 : bf16 -> !pgpu.fragment<bf16, [TILE_1, TILE_3]>
            %67 = pgpu.broadcast %54 dims [1] : !pgpu.fragment<i1, [TILE_3]> -> !pgpu.fragment<i1, [TILE_1, TILE_3]>
            %68 = pgpu.select %67, %58, %66 : !pgpu.fragment<i1, [TILE_1, TILE_3]>, !pgpu.fragment<bf16, [TILE_1, TILE_3]>
            %69 = pgpu.transpose %65 [1, 0] : !pgpu.fragment<bf16, [TILE_2, TILE_3]> -> !pgpu.fragment<bf16, [TILE_3, TILE_2]>
            %70 = pgpu.contract %68, %69, %arg5 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_1, TILE_3]>, !pgpu.fragment<bf16, [TILE_3, TILE_2]>, !pgpu.fragment<f32, [TILE_1, TILE_2]> -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
            pgpu.yield %70 : !pgpu.fragment<f32, [TILE_1, TILE_2]>
          }
          %46 = pgpu.splat %arg2 : index -> !pgpu.fragment<index, [TILE_1, TILE_2]>
          %47 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
          %48 = pgpu.broadcast %40 dims [1] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
          %49 = pgpu.broadcast %37 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
          %50 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
          %51 = pgpu.binary and %49, %50 : !pgpu.fragment<i1, [TILE_1, TILE_2]>
          pgpu.store %45, %y[%46, %47, %48] valid %51 : !pgpu.fragment<i1, [TILE_1, TILE_2]> : !pgpu.fragment<f32, [TILE_1, TILE_2]>, !pgpu.view<f32, [B, M, N], out>[!pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>]
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

// COM: Must not fire: the same batched chain, but the operand's row load reads the grouped-tile coordinate (the
// COM: one the row iota's start and the column tile are decoded from) where it read the batch: the operand then
// COM: depends on the column tile, so no two tiles of a row block share it.
// CHECK-LABEL: pgpu.kernel @batched_operand_reads_tile
// CHECK-NOT: STAGED_ROWS
// CHECK-NOT: OPERAND_PHASES
// CHECK: pgpu.program_space
// CHECK-NOT: pgpu.while
// CHECK-NOT: pgpu.buffer_load
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @batched_operand_reads_tile(%x: !pgpu.view<bf16, [B, M, N], in>, %y: !pgpu.view<f32, [B, M, N], out>) attributes {params = [#pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_2", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_3", [16, 32, 64, 128], 64>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_1", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [B, M, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<bf16, [B, M, N], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<bf16, [B, M, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %4, %6 : index
    %10 = pgpu.binary mul %9, %8 : index
    %11 = pgpu.param "TILE_1" : index
    %12 = pgpu.ceil_div %6, %11 : index
    %13 = pgpu.binary mul %4, %12 : index
    %14 = pgpu.param "TILE_2" : index
    %15 = pgpu.ceil_div %8, %14 : index
    %16 = pgpu.binary mul %13, %15 : index
    %17 = pgpu.param "PERSIST" : index
    %c132 = arith.constant 132 : index
    %18 = pgpu.binary mul %17, %c132 : index
    %19 = pgpu.binary min %16, %18 : index
    %20 = pgpu.binary mul %12, %15 : index
    pgpu.program_space(%19) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %16 step %19 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%4, %20) segment 0 roles ["axis0", "grouped tiles"] {
        ^bb0(%arg2: index, %arg3: index):
          %21 = pgpu.param "GROUP_1" : index
          %22 = pgpu.binary mul %21, %15 : index
          %23 = pgpu.binary div %arg3, %22 : index
          %24 = pgpu.binary mul %23, %21 : index
          %c1_1 = arith.constant 1 : index
          %25 = pgpu.binary sub %12, %24 : index
          %26 = pgpu.binary min %25, %21 : index
          %27 = pgpu.binary max %26, %c1_1 : index
          %28 = pgpu.binary mul %23, %22 : index
          %29 = pgpu.binary sub %arg3, %28 : index
          %30 = pgpu.binary rem %29, %27 : index
          %31 = pgpu.binary add %24, %30 : index
          %32 = pgpu.binary div %29, %27 : index
          %33 = pgpu.param "TILE_1" : index
          %34 = pgpu.binary mul %31, %33 : index
          %35 = pgpu.iota %34 : !pgpu.fragment<index, [TILE_1]>
          %36 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %37 = pgpu.cmp lt %35, %36 : !pgpu.fragment<index, [TILE_1]>
          %38 = pgpu.param "TILE_2" : index
          %39 = pgpu.binary mul %32, %38 : index
          %40 = pgpu.iota %39 : !pgpu.fragment<index, [TILE_2]>
          %41 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_2]>
          %42 = pgpu.cmp lt %40, %41 : !pgpu.fragment<index, [TILE_2]>
          %43 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
          %44 = pgpu.param "TILE_3" : index
          %45 = pgpu.for %c0 to %6 step %44 iter_args(%43 : !pgpu.fragment<f32, [TILE_1, TILE_2]>) -> !pgpu.fragment<f32, [TILE_1, TILE_2]> {
          ^bb0(%arg4: index, %arg5: !pgpu.fragment<f32, [TILE_1, TILE_2]>):
            %52 = pgpu.iota %arg4 : !pgpu.fragment<index, [TILE_3]>
            %53 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_3]>
            %54 = pgpu.cmp lt %52, %53 : !pgpu.fragment<index, [TILE_3]>
            %55 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_1, TILE_3]>
            %56 = pgpu.param "TILE_K" : index
            %57 = pgpu.for %c0 to %8 step %56 iter_args(%55 : !pgpu.fragment<f32, [TILE_1, TILE_3]>) -> !pgpu.fragment<f32, [TILE_1, TILE_3]> {
            ^bb0(%arg6: index, %arg7: !pgpu.fragment<f32, [TILE_1, TILE_3]>):
              %71 = pgpu.iota %arg6 : !pgpu.fragment<index, [TILE_K]>
              %72 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
              %73 = pgpu.cmp lt %71, %72 : !pgpu.fragment<index, [TILE_K]>
              %74 = pgpu.splat %arg3 : index -> !pgpu.fragment<index, [TILE_1, TILE_K]>
              %75 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
              %76 = pgpu.broadcast %71 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
              %77 = pgpu.broadcast %37 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
              %78 = pgpu.broadcast %73 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
              %79 = pgpu.binary and %77, %78 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
              %80 = pgpu.load %x[%74, %75, %76] valid %79 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_1, TILE_K]>
              %81 = pgpu.splat %arg2 : index -> !pgpu.fragment<index, [TILE_3, TILE_K]>
              %82 = pgpu.broadcast %52 dims [0] : !pgpu.fragment<index, [TILE_3]> -> !pgpu.fragment<index, [TILE_3, TILE_K]>
              %83 = pgpu.broadcast %71 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_3, TILE_K]>
              %84 = pgpu.broadcast %54 dims [0] : !pgpu.fragment<i1, [TILE_3]> -> !pgpu.fragment<i1, [TILE_3, TILE_K]>
              %85 = pgpu.broadcast %73 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_3, TILE_K]>
              %86 = pgpu.binary and %84, %85 : !pgpu.fragment<i1, [TILE_3, TILE_K]>
              %87 = pgpu.load %x[%81, %82, %83] valid %86 : !pgpu.fragment<i1, [TILE_3, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[!pgpu.fragment<index, [TILE_3, TILE_K]>, !pgpu.fragment<index, [TILE_3, TILE_K]>, !pgpu.fragment<index, [TILE_3, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_3, TILE_K]>
              %88 = pgpu.transpose %87 [1, 0] : !pgpu.fragment<bf16, [TILE_3, TILE_K]> -> !pgpu.fragment<bf16, [TILE_K, TILE_3]>
              %89 = pgpu.contract %80, %88, %arg7 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_1, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_3]>, !pgpu.fragment<f32, [TILE_1, TILE_3]> -> !pgpu.fragment<f32, [TILE_1, TILE_3]>
              pgpu.yield %89 : !pgpu.fragment<f32, [TILE_1, TILE_3]>
            }
            %58 = pgpu.cast %57 : !pgpu.fragment<f32, [TILE_1, TILE_3]> to !pgpu.fragment<bf16, [TILE_1, TILE_3]>
            %59 = pgpu.splat %arg2 : index -> !pgpu.fragment<index, [TILE_2, TILE_3]>
            %60 = pgpu.broadcast %52 dims [1] : !pgpu.fragment<index, [TILE_3]> -> !pgpu.fragment<index, [TILE_2, TILE_3]>
            %61 = pgpu.broadcast %40 dims [0] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_2, TILE_3]>
            %62 = pgpu.broadcast %42 dims [0] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_2, TILE_3]>
            %63 = pgpu.broadcast %54 dims [1] : !pgpu.fragment<i1, [TILE_3]> -> !pgpu.fragment<i1, [TILE_2, TILE_3]>
            %64 = pgpu.binary and %62, %63 : !pgpu.fragment<i1, [TILE_2, TILE_3]>
            %65 = pgpu.load %x[%59, %60, %61] valid %64 : !pgpu.fragment<i1, [TILE_2, TILE_3]> fill %cst : bf16 : !pgpu.view<bf16, [B, M, N], in>[!pgpu.fragment<index, [TILE_2, TILE_3]>, !pgpu.fragment<index, [TILE_2, TILE_3]>, !pgpu.fragment<index, [TILE_2, TILE_3]>] -> !pgpu.fragment<bf16, [TILE_2, TILE_3]>
            %cst_2 = arith.constant 0.000000e+00 : bf16
            %66 = pgpu.splat %cst_2 : bf16 -> !pgpu.fragment<bf16, [TILE_1, TILE_3]>
            %67 = pgpu.broadcast %54 dims [1] : !pgpu.fragment<i1, [TILE_3]> -> !pgpu.fragment<i1, [TILE_1, TILE_3]>
            %68 = pgpu.select %67, %58, %66 : !pgpu.fragment<i1, [TILE_1, TILE_3]>, !pgpu.fragment<bf16, [TILE_1, TILE_3]>
            %69 = pgpu.transpose %65 [1, 0] : !pgpu.fragment<bf16, [TILE_2, TILE_3]> -> !pgpu.fragment<bf16, [TILE_3, TILE_2]>
            %70 = pgpu.contract %68, %69, %arg5 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_1, TILE_3]>, !pgpu.fragment<bf16, [TILE_3, TILE_2]>, !pgpu.fragment<f32, [TILE_1, TILE_2]> -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
            pgpu.yield %70 : !pgpu.fragment<f32, [TILE_1, TILE_2]>
          }
          %46 = pgpu.splat %arg2 : index -> !pgpu.fragment<index, [TILE_1, TILE_2]>
          %47 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
          %48 = pgpu.broadcast %40 dims [1] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
          %49 = pgpu.broadcast %37 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
          %50 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
          %51 = pgpu.binary and %49, %50 : !pgpu.fragment<i1, [TILE_1, TILE_2]>
          pgpu.store %45, %y[%46, %47, %48] valid %51 : !pgpu.fragment<i1, [TILE_1, TILE_2]> : !pgpu.fragment<f32, [TILE_1, TILE_2]>, !pgpu.view<f32, [B, M, N], out>[!pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>]
          pgpu.yield
        } {roles = ["axis0", "grouped tiles"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

