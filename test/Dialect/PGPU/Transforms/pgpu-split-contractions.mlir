// RUN: tessel-opt %s -split-input-file -pgpu-split-contractions | FileCheck %s

// COM: Corpus 135 (G = X^T X) after pgpu-form-tiles: the persistent walk over the output tiles, each
// COM: tile's K loop summing contractions into a zero tile. The group gains a trailing split_k axis of
// COM: SPLIT_KS = (SPLIT_K != 1 ? max(min(SPLIT_K, steps), 1) : 1) chunks (a choice on the parameter
// COM: alone, which a provider's compiler folds to 1 at SPLIT_K = 1); the walk covers tiles * SPLIT_KS points in
// COM: min(tiles * SPLIT_KS, PERSIST * 132) programs; under SPLIT_K != 1 each chunk runs the K loop over its
// COM: steps, stores its partial tile at [tile, chunk] of workspace, and the tile's last arrival adds the
// COM: partials in chunk order, then stores; otherwise the original loop and store.
// CHECK-LABEL: pgpu.kernel @gram_matrix
// CHECK-SAME: %[[TICKETS:[^:]*]]: !pgpu.buffer<i32, [SPLIT_K_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[PART:[^:]*]]: !pgpu.buffer<f32, [SPLIT_K_POINTS, SPLIT_K_SPLITS, TILE_0, TILE_1], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: #pgpu.param<"SPLIT_K", [1, 2, 4, 8, 16, 32, 64], 1>
// CHECK: %[[TILES:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : index
// CHECK: %[[STEPS:.*]] = pgpu.ceil_div
// CHECK: %[[PARAM:.*]] = pgpu.param "SPLIT_K" : index
// CHECK: %[[MIN:.*]] = pgpu.binary min %[[PARAM]], %[[STEPS]] : index
// CHECK: %[[CUT:.*]] = pgpu.binary max %[[MIN]], %{{.*}} : index
// CHECK: %[[ON:.*]] = pgpu.cmp ne %[[PARAM]], %{{.*}} : index
// CHECK: %[[SPLITS:.*]] = pgpu.select %[[ON]], %[[CUT]], %{{.*}} : i1, index
// CHECK: pgpu.workspace_extent "SPLIT_K_POINTS" = %{{.*}}
// CHECK: pgpu.workspace_extent "SPLIT_K_SPLITS" = %[[SPLITS]]
// CHECK: %[[GROWN:.*]] = pgpu.binary mul %[[TILES]], %[[SPLITS]] : index
// CHECK: %[[PROGS:.*]] = pgpu.binary min %[[GROWN]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[PROGS]])
// CHECK: pgpu.for %{{.*}} to %[[GROWN]] step %[[PROGS]] {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[TILES]], %[[SPLITS]]) segment 0 roles ["grouped tiles", "split_k"] {
// CHECK-NEXT: ^bb0(%[[TILE:.*]]: index, %[[C:.*]]: index):
// CHECK: pgpu.if %[[ON]] {
// CHECK: %[[BEGIN:.*]] = pgpu.binary min
// CHECK: %[[END:.*]] = pgpu.binary min
// CHECK: %[[ACC:.*]] = pgpu.for %[[BEGIN]] to %[[END]] step
// CHECK: pgpu.contract
// CHECK: pgpu.buffer_store %[[ACC]], %[[PART]][%[[TILE]], %[[C]],
// CHECK: pgpu.last_program %[[TICKETS]][%[[TILE]]] arrivals %[[SPLITS]] :
// CHECK: %[[SUM:.*]] = pgpu.for %{{.*}} to %[[SPLITS]] step %{{.*}} iter_args(
// CHECK: pgpu.buffer_load %[[PART]]
// CHECK: pgpu.binary add
// CHECK: pgpu.store %[[SUM]], %g
// CHECK: } else {
// CHECK: %[[WHOLE:.*]] = pgpu.for %c0 to
// CHECK: pgpu.store %[[WHOLE]], %g

module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gram_matrix(%x: !pgpu.view<f16, [N, D], in>, %g: !pgpu.view<f32, [D, D], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [N, D], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [N, D], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.param "TILE_0" : index
    %7 = pgpu.ceil_div %5, %6 : index
    %8 = pgpu.param "TILE_1" : index
    %9 = pgpu.ceil_div %5, %8 : index
    %10 = pgpu.binary mul %7, %9 : index
    %11 = pgpu.param "PERSIST" : index
    %12 = pgpu.binary mul %11, %c132 : index
    %13 = pgpu.binary min %10, %12 : index
    pgpu.program_space(%13) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %10 step %13 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%10) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %14 = pgpu.param "GROUP_0" : index
          %15 = pgpu.binary mul %14, %9 : index
          %16 = pgpu.binary div %arg2, %15 : index
          %17 = pgpu.binary mul %16, %14 : index
          %18 = pgpu.binary sub %7, %17 : index
          %19 = pgpu.binary min %18, %14 : index
          %20 = pgpu.binary max %19, %c1 : index
          %21 = pgpu.binary mul %16, %15 : index
          %22 = pgpu.binary sub %arg2, %21 : index
          %23 = pgpu.binary rem %22, %20 : index
          %24 = pgpu.binary add %17, %23 : index
          %25 = pgpu.binary div %22, %20 : index
          %26 = pgpu.binary mul %24, %6 : index
          %27 = pgpu.iota %26 : !pgpu.fragment<index, [TILE_0]>
          %28 = pgpu.splat %5 : index -> !pgpu.fragment<index, [TILE_0]>
          %29 = pgpu.cmp lt %27, %28 : !pgpu.fragment<index, [TILE_0]>
          %30 = pgpu.binary mul %25, %8 : index
          %31 = pgpu.iota %30 : !pgpu.fragment<index, [TILE_1]>
          %32 = pgpu.splat %5 : index -> !pgpu.fragment<index, [TILE_1]>
          %33 = pgpu.cmp lt %31, %32 : !pgpu.fragment<index, [TILE_1]>
          %34 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %35 = pgpu.param "TILE_K" : index
          %36 = pgpu.for %c0 to %3 step %35 iter_args(%34 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %42 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %43 = pgpu.splat %3 : index -> !pgpu.fragment<index, [TILE_K]>
            %44 = pgpu.cmp lt %42, %43 : !pgpu.fragment<index, [TILE_K]>
            %45 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %46 = pgpu.broadcast %27 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %47 = pgpu.broadcast %29 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %48 = pgpu.broadcast %44 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %49 = pgpu.binary and %47, %48 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %50 = pgpu.load %x[%45, %46] valid %49 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %51 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %52 = pgpu.broadcast %31 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %53 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %54 = pgpu.broadcast %44 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %55 = pgpu.binary and %53, %54 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %56 = pgpu.load %x[%51, %52] valid %55 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %57 = pgpu.transpose %56 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %58 = pgpu.contract %50, %57, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %58 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %37 = pgpu.broadcast %27 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %38 = pgpu.broadcast %31 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %39 = pgpu.broadcast %29 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %40 = pgpu.broadcast %33 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %41 = pgpu.binary and %39, %40 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %36, %g[%37, %38] valid %41 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.view<f32, [D, D], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
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

// COM: Must not fire: the accumulator starts at a nonzero tile (a contraction's init=): each chunk
// COM: would add it again.
// CHECK-LABEL: pgpu.kernel @gram_init
// CHECK-NOT: SPLIT_K
// CHECK: pgpu.return

module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gram_init(%x: !pgpu.view<f16, [N, D], in>, %g: !pgpu.view<f32, [D, D], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 1.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [N, D], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [N, D], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.param "TILE_0" : index
    %7 = pgpu.ceil_div %5, %6 : index
    %8 = pgpu.param "TILE_1" : index
    %9 = pgpu.ceil_div %5, %8 : index
    %10 = pgpu.binary mul %7, %9 : index
    %11 = pgpu.param "PERSIST" : index
    %12 = pgpu.binary mul %11, %c132 : index
    %13 = pgpu.binary min %10, %12 : index
    pgpu.program_space(%13) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %10 step %13 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%10) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %14 = pgpu.param "GROUP_0" : index
          %15 = pgpu.binary mul %14, %9 : index
          %16 = pgpu.binary div %arg2, %15 : index
          %17 = pgpu.binary mul %16, %14 : index
          %18 = pgpu.binary sub %7, %17 : index
          %19 = pgpu.binary min %18, %14 : index
          %20 = pgpu.binary max %19, %c1 : index
          %21 = pgpu.binary mul %16, %15 : index
          %22 = pgpu.binary sub %arg2, %21 : index
          %23 = pgpu.binary rem %22, %20 : index
          %24 = pgpu.binary add %17, %23 : index
          %25 = pgpu.binary div %22, %20 : index
          %26 = pgpu.binary mul %24, %6 : index
          %27 = pgpu.iota %26 : !pgpu.fragment<index, [TILE_0]>
          %28 = pgpu.splat %5 : index -> !pgpu.fragment<index, [TILE_0]>
          %29 = pgpu.cmp lt %27, %28 : !pgpu.fragment<index, [TILE_0]>
          %30 = pgpu.binary mul %25, %8 : index
          %31 = pgpu.iota %30 : !pgpu.fragment<index, [TILE_1]>
          %32 = pgpu.splat %5 : index -> !pgpu.fragment<index, [TILE_1]>
          %33 = pgpu.cmp lt %31, %32 : !pgpu.fragment<index, [TILE_1]>
          %34 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %35 = pgpu.param "TILE_K" : index
          %36 = pgpu.for %c0 to %3 step %35 iter_args(%34 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %42 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %43 = pgpu.splat %3 : index -> !pgpu.fragment<index, [TILE_K]>
            %44 = pgpu.cmp lt %42, %43 : !pgpu.fragment<index, [TILE_K]>
            %45 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %46 = pgpu.broadcast %27 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %47 = pgpu.broadcast %29 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %48 = pgpu.broadcast %44 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %49 = pgpu.binary and %47, %48 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %50 = pgpu.load %x[%45, %46] valid %49 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %51 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %52 = pgpu.broadcast %31 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %53 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %54 = pgpu.broadcast %44 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %55 = pgpu.binary and %53, %54 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %56 = pgpu.load %x[%51, %52] valid %55 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %57 = pgpu.transpose %56 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %58 = pgpu.contract %50, %57, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %58 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %37 = pgpu.broadcast %27 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %38 = pgpu.broadcast %31 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %39 = pgpu.broadcast %29 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %40 = pgpu.broadcast %33 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %41 = pgpu.binary and %39, %40 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %36, %g[%37, %38] valid %41 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.view<f32, [D, D], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
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

// COM: Must not fire: a constant 256 output tiles fill the 132 multiprocessors already.
// CHECK-LABEL: pgpu.kernel @gram_many
// CHECK-NOT: SPLIT_K
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gram_many(%x: !pgpu.view<f16, [N, D], in>, %g: !pgpu.view<f32, [D, D], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [N, D], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [N, D], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.param "TILE_0" : index
    %7 = pgpu.ceil_div %5, %6 : index
    %8 = pgpu.param "TILE_1" : index
    %9 = pgpu.ceil_div %5, %8 : index
    %10 = arith.constant 256 : index
    %11 = pgpu.param "PERSIST" : index
    %12 = pgpu.binary mul %11, %c132 : index
    %13 = pgpu.binary min %10, %12 : index
    pgpu.program_space(%13) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %10 step %13 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%10) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %14 = pgpu.param "GROUP_0" : index
          %15 = pgpu.binary mul %14, %9 : index
          %16 = pgpu.binary div %arg2, %15 : index
          %17 = pgpu.binary mul %16, %14 : index
          %18 = pgpu.binary sub %7, %17 : index
          %19 = pgpu.binary min %18, %14 : index
          %20 = pgpu.binary max %19, %c1 : index
          %21 = pgpu.binary mul %16, %15 : index
          %22 = pgpu.binary sub %arg2, %21 : index
          %23 = pgpu.binary rem %22, %20 : index
          %24 = pgpu.binary add %17, %23 : index
          %25 = pgpu.binary div %22, %20 : index
          %26 = pgpu.binary mul %24, %6 : index
          %27 = pgpu.iota %26 : !pgpu.fragment<index, [TILE_0]>
          %28 = pgpu.splat %5 : index -> !pgpu.fragment<index, [TILE_0]>
          %29 = pgpu.cmp lt %27, %28 : !pgpu.fragment<index, [TILE_0]>
          %30 = pgpu.binary mul %25, %8 : index
          %31 = pgpu.iota %30 : !pgpu.fragment<index, [TILE_1]>
          %32 = pgpu.splat %5 : index -> !pgpu.fragment<index, [TILE_1]>
          %33 = pgpu.cmp lt %31, %32 : !pgpu.fragment<index, [TILE_1]>
          %34 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %35 = pgpu.param "TILE_K" : index
          %36 = pgpu.for %c0 to %3 step %35 iter_args(%34 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %42 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %43 = pgpu.splat %3 : index -> !pgpu.fragment<index, [TILE_K]>
            %44 = pgpu.cmp lt %42, %43 : !pgpu.fragment<index, [TILE_K]>
            %45 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %46 = pgpu.broadcast %27 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %47 = pgpu.broadcast %29 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %48 = pgpu.broadcast %44 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %49 = pgpu.binary and %47, %48 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %50 = pgpu.load %x[%45, %46] valid %49 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %51 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %52 = pgpu.broadcast %31 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %53 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %54 = pgpu.broadcast %44 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %55 = pgpu.binary and %53, %54 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %56 = pgpu.load %x[%51, %52] valid %55 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %57 = pgpu.transpose %56 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %58 = pgpu.contract %50, %57, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %58 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %37 = pgpu.broadcast %27 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %38 = pgpu.broadcast %31 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %39 = pgpu.broadcast %29 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %40 = pgpu.broadcast %33 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %41 = pgpu.binary and %39, %40 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %36, %g[%37, %38] valid %41 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.view<f32, [D, D], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
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

// COM: A GEMM of two views (X^T Y) splits as the Gram matrix does: each chunk's loop reads both views,
// COM: and the last arrival's sum runs the store (the Triton provider's analyses read the branch
// COM: SPLIT_K's binding takes: Target/Triton/split-gemm-defaults.mlir).
// CHECK-LABEL: pgpu.kernel @gemm_two
// CHECK-SAME: #pgpu.param<"SPLIT_K", [1, 2, 4, 8, 16, 32, 64], 1>
// CHECK: %[[ON2:.*]] = pgpu.cmp ne
// CHECK: %[[SPLITS2:.*]] = pgpu.select %[[ON2]]
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %[[SPLITS2]]) segment 0 roles ["grouped tiles", "split_k"] {
// CHECK: pgpu.if %[[ON2]] {
// CHECK: pgpu.for
// CHECK: pgpu.load %x
// CHECK: pgpu.load %y
// CHECK: pgpu.contract
// CHECK: pgpu.buffer_store
// CHECK: pgpu.last_program
// CHECK: pgpu.store %{{.*}}, %g
// CHECK: } else {
// CHECK: pgpu.load %x
// CHECK: pgpu.load %y
// CHECK: pgpu.store %{{.*}}, %g
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gemm_two(%x: !pgpu.view<f16, [N, D], in>, %y: !pgpu.view<f16, [N, D], in>, %g: !pgpu.view<f32, [D, D], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [N, D], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [N, D], in>
    %2 = pgpu.ceil_div %0, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.param "TILE_0" : index
    %7 = pgpu.ceil_div %5, %6 : index
    %8 = pgpu.param "TILE_1" : index
    %9 = pgpu.ceil_div %5, %8 : index
    %10 = pgpu.binary mul %7, %9 : index
    %11 = pgpu.param "PERSIST" : index
    %12 = pgpu.binary mul %11, %c132 : index
    %13 = pgpu.binary min %10, %12 : index
    pgpu.program_space(%13) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %10 step %13 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%10) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %14 = pgpu.param "GROUP_0" : index
          %15 = pgpu.binary mul %14, %9 : index
          %16 = pgpu.binary div %arg2, %15 : index
          %17 = pgpu.binary mul %16, %14 : index
          %18 = pgpu.binary sub %7, %17 : index
          %19 = pgpu.binary min %18, %14 : index
          %20 = pgpu.binary max %19, %c1 : index
          %21 = pgpu.binary mul %16, %15 : index
          %22 = pgpu.binary sub %arg2, %21 : index
          %23 = pgpu.binary rem %22, %20 : index
          %24 = pgpu.binary add %17, %23 : index
          %25 = pgpu.binary div %22, %20 : index
          %26 = pgpu.binary mul %24, %6 : index
          %27 = pgpu.iota %26 : !pgpu.fragment<index, [TILE_0]>
          %28 = pgpu.splat %5 : index -> !pgpu.fragment<index, [TILE_0]>
          %29 = pgpu.cmp lt %27, %28 : !pgpu.fragment<index, [TILE_0]>
          %30 = pgpu.binary mul %25, %8 : index
          %31 = pgpu.iota %30 : !pgpu.fragment<index, [TILE_1]>
          %32 = pgpu.splat %5 : index -> !pgpu.fragment<index, [TILE_1]>
          %33 = pgpu.cmp lt %31, %32 : !pgpu.fragment<index, [TILE_1]>
          %34 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %35 = pgpu.param "TILE_K" : index
          %36 = pgpu.for %c0 to %3 step %35 iter_args(%34 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %42 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %43 = pgpu.splat %3 : index -> !pgpu.fragment<index, [TILE_K]>
            %44 = pgpu.cmp lt %42, %43 : !pgpu.fragment<index, [TILE_K]>
            %45 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %46 = pgpu.broadcast %27 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %47 = pgpu.broadcast %29 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %48 = pgpu.broadcast %44 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %49 = pgpu.binary and %47, %48 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %50 = pgpu.load %x[%45, %46] valid %49 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %51 = pgpu.broadcast %42 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %52 = pgpu.broadcast %31 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %53 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %54 = pgpu.broadcast %44 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %55 = pgpu.binary and %53, %54 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %56 = pgpu.load %y[%51, %52] valid %55 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %57 = pgpu.transpose %56 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %58 = pgpu.contract %50, %57, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %58 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %37 = pgpu.broadcast %27 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %38 = pgpu.broadcast %31 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %39 = pgpu.broadcast %29 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %40 = pgpu.broadcast %33 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %41 = pgpu.binary and %39, %40 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %36, %g[%37, %38] valid %41 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.view<f32, [D, D], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
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

// COM: Must not fire: the row norms of both operands (a cosine similarity, corpus 118) walk the K loop's
// COM: range again after it (pgpu-fuse-sibling-loops later carries them in the K loop); split, the tile's last
// COM: arrival would walk the whole reduced axis alone, reading both operands again.
// CHECK-LABEL: pgpu.kernel @cosine
// CHECK-NOT: SPLIT_K
// CHECK-NOT: pgpu.last_program
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @cosine(%a: !pgpu.view<f16, [M, D], in>, %b: !pgpu.view<f16, [N, D], in>, %s: !pgpu.view<f16, [M, N], out>, %tau: f32) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %cst = arith.constant 0.000000e+00 : f16
    %true = arith.constant true
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 9.99999996E-13 : f32
    %cst_2 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f16, [M, D], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f16, [M, D], in>
    %2 = pgpu.extent %b[0] : !pgpu.view<f16, [N, D], in>
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
          %c1_3 = arith.constant 1 : index
          %23 = pgpu.binary sub %11, %22 : index
          %24 = pgpu.binary min %23, %19 : index
          %25 = pgpu.binary max %24, %c1_3 : index
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
          %41 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %42 = pgpu.param "TILE_K" : index
          %43 = pgpu.for %c0 to %8 step %42 iter_args(%41 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %72 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %73 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %74 = pgpu.cmp lt %72, %73 : !pgpu.fragment<index, [TILE_K]>
            %75 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %76 = pgpu.broadcast %72 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %77 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %78 = pgpu.broadcast %74 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %79 = pgpu.binary and %77, %78 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %80 = pgpu.load %a[%75, %76] valid %79 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [M, D], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %81 = pgpu.broadcast %38 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %82 = pgpu.broadcast %72 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %83 = pgpu.broadcast %40 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %84 = pgpu.broadcast %74 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %85 = pgpu.binary and %83, %84 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %86 = pgpu.load %b[%81, %82] valid %85 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %87 = pgpu.transpose %86 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %88 = pgpu.contract %80, %87, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %88 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %44 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [TILE_0]>
          %45 = pgpu.param "TILE_K" : index
          %46 = pgpu.for %c0 to %8 step %45 iter_args(%44 : !pgpu.fragment<f32, [TILE_0]>) -> !pgpu.fragment<f32, [TILE_0]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0]>):
            %72 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %73 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %74 = pgpu.cmp lt %72, %73 : !pgpu.fragment<index, [TILE_K]>
            %75 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %76 = pgpu.broadcast %72 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %77 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %78 = pgpu.broadcast %74 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %79 = pgpu.binary and %77, %78 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %80 = pgpu.load %a[%75, %76] valid %79 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [M, D], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %81 = pgpu.cast %80 : !pgpu.fragment<f16, [TILE_0, TILE_K]> to !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %82 = pgpu.binary mul %81, %81 : !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %83 = pgpu.broadcast %74 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %84 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %85 = pgpu.select %83, %82, %84 : !pgpu.fragment<i1, [TILE_0, TILE_K]>, !pgpu.fragment<f32, [TILE_0, TILE_K]>
            %86 = pgpu.reduce %85 axes [1] identity(%cst_2 : f32) : (!pgpu.fragment<f32, [TILE_0, TILE_K]>) -> (!pgpu.fragment<f32, [TILE_0]>) {
            ^bb0(%arg5: f32, %arg6: f32):
              %88 = pgpu.binary add %arg5, %arg6 : f32
              pgpu.yield %88 : f32
            }
            %87 = pgpu.binary add %arg4, %86 : !pgpu.fragment<f32, [TILE_0]>
            pgpu.yield %87 : !pgpu.fragment<f32, [TILE_0]>
          }
          %47 = pgpu.unary sqrt %46 : !pgpu.fragment<f32, [TILE_0]>
          %48 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [TILE_0]>
          %49 = pgpu.binary max %47, %48 : !pgpu.fragment<f32, [TILE_0]>
          %50 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0]>
          %51 = pgpu.binary div %50, %49 : !pgpu.fragment<f32, [TILE_0]>
          %52 = pgpu.broadcast %51 dims [0] : !pgpu.fragment<f32, [TILE_0]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %53 = pgpu.binary mul %43, %52 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %54 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [TILE_1]>
          %55 = pgpu.param "TILE_K" : index
          %56 = pgpu.for %c0 to %8 step %55 iter_args(%54 : !pgpu.fragment<f32, [TILE_1]>) -> !pgpu.fragment<f32, [TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_1]>):
            %72 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %73 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %74 = pgpu.cmp lt %72, %73 : !pgpu.fragment<index, [TILE_K]>
            %75 = pgpu.broadcast %38 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %76 = pgpu.broadcast %72 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %77 = pgpu.broadcast %40 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %78 = pgpu.broadcast %74 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %79 = pgpu.binary and %77, %78 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %80 = pgpu.load %b[%75, %76] valid %79 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, D], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %81 = pgpu.cast %80 : !pgpu.fragment<f16, [TILE_1, TILE_K]> to !pgpu.fragment<f32, [TILE_1, TILE_K]>
            %82 = pgpu.binary mul %81, %81 : !pgpu.fragment<f32, [TILE_1, TILE_K]>
            %83 = pgpu.broadcast %74 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %84 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [TILE_1, TILE_K]>
            %85 = pgpu.select %83, %82, %84 : !pgpu.fragment<i1, [TILE_1, TILE_K]>, !pgpu.fragment<f32, [TILE_1, TILE_K]>
            %86 = pgpu.reduce %85 axes [1] identity(%cst_2 : f32) : (!pgpu.fragment<f32, [TILE_1, TILE_K]>) -> (!pgpu.fragment<f32, [TILE_1]>) {
            ^bb0(%arg5: f32, %arg6: f32):
              %88 = pgpu.binary add %arg5, %arg6 : f32
              pgpu.yield %88 : f32
            }
            %87 = pgpu.binary add %arg4, %86 : !pgpu.fragment<f32, [TILE_1]>
            pgpu.yield %87 : !pgpu.fragment<f32, [TILE_1]>
          }
          %57 = pgpu.unary sqrt %56 : !pgpu.fragment<f32, [TILE_1]>
          %58 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [TILE_1]>
          %59 = pgpu.binary max %57, %58 : !pgpu.fragment<f32, [TILE_1]>
          %60 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_1]>
          %61 = pgpu.binary div %60, %59 : !pgpu.fragment<f32, [TILE_1]>
          %62 = pgpu.broadcast %61 dims [1] : !pgpu.fragment<f32, [TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %63 = pgpu.binary mul %53, %62 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %64 = pgpu.splat %tau : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %65 = pgpu.binary div %63, %64 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %66 = pgpu.cast %65 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<f16, [TILE_0, TILE_1]>
          %67 = pgpu.broadcast %33 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %68 = pgpu.broadcast %38 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %69 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %70 = pgpu.broadcast %40 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %71 = pgpu.binary and %69, %70 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %66, %s[%67, %68] valid %71 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f16, [TILE_0, TILE_1]>, !pgpu.view<f16, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
          pgpu.yield
        } {roles = ["grouped tiles"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
