// RUN: tessel-opt %s -split-input-file -pgpu-reuse-input-reads -verify-diagnostics | FileCheck %s

// COM: GPTQ int4 GEMM after blocking (corpus 80): in the TILE_K loop (from 0, TILE_K in [16, 128]) the
// COM: zero points and scales are read at [n, k / 128], one value a row for every lane of a trip (128 is a
// COM: multiple of every TILE_K). Each becomes a [TILE_1] read at iv / 128 broadcast along the lanes. The
// COM: lanes past K would be given the fill by a select, but every use discards them: the dequantized
// COM: weight (casts, and, sub, mul) is selected against the same lane bound before the contraction, so
// COM: the broadcast row is used as it is (one select a tile, not three). The packed bytes at [n, k / 2]
// COM: (a trip's lanes cross multiples of 2) keep their [TILE_1, TILE_K] read.
// CHECK-LABEL: pgpu.kernel @gptq_int4_gemm
// CHECK: pgpu.for
// CHECK: pgpu.gather %wq[{{.*}}] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
// CHECK: %[[G:.*]] = pgpu.binary div %arg3, %c128{{.*}} : index
// CHECK: %[[Z:.*]] = pgpu.gather %zeros[%{{.*}}, %[[G]]] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1]> {{.*}} -> !pgpu.fragment<i8, [TILE_1]>
// CHECK: %[[ZB:.*]] = pgpu.broadcast %[[Z]] dims [0] : !pgpu.fragment<i8, [TILE_1]> -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
// CHECK-NEXT: pgpu.cast %[[ZB]] : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
// CHECK: %[[S:.*]] = pgpu.gather %scales[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1]> {{.*}} -> !pgpu.fragment<f16, [TILE_1]>
// CHECK-NEXT: %[[SB:.*]] = pgpu.broadcast %[[S]] dims [0]
// CHECK-NEXT: pgpu.binary mul %{{.*}}, %[[SB]] : !pgpu.fragment<f16, [TILE_1, TILE_K]>
// CHECK-NOT: pgpu.gather %scales
// CHECK: pgpu.select
// CHECK-NOT: pgpu.select
// CHECK: pgpu.contract
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gptq_int4_gemm(%x: !pgpu.view<f16, [M, K], in>, %wq: !pgpu.view<i8, [N, KH], in>, %scales: !pgpu.view<f16, [N, G], in>, %zeros: !pgpu.view<i8, [N, G], in>, %y: !pgpu.view<f16, [M, N], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %c0_i8 = arith.constant 0 : i8
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c255_i32 = arith.constant 255 : i32
    %c128 = arith.constant 128 : index
    %c15_i32 = arith.constant 15 : i32
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %wq[0] : !pgpu.view<i8, [N, KH], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.param "TILE_0" : index
    %10 = pgpu.ceil_div %4, %9 : index
    %11 = pgpu.param "TILE_1" : index
    %12 = pgpu.ceil_div %6, %11 : index
    %13 = pgpu.binary mul %10, %12 : index
    %14 = pgpu.param "PERSIST" : index
    %15 = pgpu.binary mul %14, %c132 : index
    %16 = pgpu.binary min %13, %15 : index
    pgpu.program_space(%16) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %13 step %16 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%13) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %17 = pgpu.param "GROUP_0" : index
          %18 = pgpu.binary mul %17, %12 : index
          %19 = pgpu.binary div %arg2, %18 : index
          %20 = pgpu.binary mul %19, %17 : index
          %21 = pgpu.binary sub %10, %20 : index
          %22 = pgpu.binary min %21, %17 : index
          %23 = pgpu.binary max %22, %c1 : index
          %24 = pgpu.binary mul %19, %18 : index
          %25 = pgpu.binary sub %arg2, %24 : index
          %26 = pgpu.binary rem %25, %23 : index
          %27 = pgpu.binary add %20, %26 : index
          %28 = pgpu.binary div %25, %23 : index
          %29 = pgpu.binary mul %27, %9 : index
          %30 = pgpu.iota %29 : !pgpu.fragment<index, [TILE_0]>
          %31 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %32 = pgpu.cmp lt %30, %31 : !pgpu.fragment<index, [TILE_0]>
          %33 = pgpu.binary mul %28, %11 : index
          %34 = pgpu.iota %33 : !pgpu.fragment<index, [TILE_1]>
          %35 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %36 = pgpu.cmp lt %34, %35 : !pgpu.fragment<index, [TILE_1]>
          %37 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %38 = pgpu.param "TILE_K" : index
          %39 = pgpu.for %c0 to %8 step %38 iter_args(%37 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %46 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %47 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %48 = pgpu.cmp lt %46, %47 : !pgpu.fragment<index, [TILE_K]>
            %49 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %50 = pgpu.broadcast %46 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %51 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %52 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %53 = pgpu.binary and %51, %52 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %54 = pgpu.load %x[%49, %50] valid %53 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %55 = pgpu.splat %c2 : index -> !pgpu.fragment<index, [TILE_K]>
            %56 = pgpu.binary div %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %57 = pgpu.broadcast %34 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %58 = pgpu.broadcast %56 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %59 = pgpu.broadcast %36 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %60 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %61 = pgpu.binary and %59, %60 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %62 = pgpu.gather %wq[%57, %58] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %63 = pgpu.cast %62 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %64 = pgpu.binary rem %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %65 = pgpu.splat %c4 : index -> !pgpu.fragment<index, [TILE_K]>
            %66 = pgpu.binary mul %65, %64 : !pgpu.fragment<index, [TILE_K]>
            %67 = pgpu.cast %66 : !pgpu.fragment<index, [TILE_K]> to !pgpu.fragment<i32, [TILE_K]>
            %68 = pgpu.broadcast %67 dims [1] : !pgpu.fragment<i32, [TILE_K]> -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %69 = pgpu.binary shr %63, %68 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %70 = pgpu.splat %c15_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %71 = pgpu.binary and %69, %70 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %72 = pgpu.splat %c128 : index -> !pgpu.fragment<index, [TILE_K]>
            %73 = pgpu.binary div %46, %72 : !pgpu.fragment<index, [TILE_K]>
            %74 = pgpu.broadcast %73 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            // expected-remark @+1 {{pgpu-reuse-input-reads: a read whose lane coordinate is k / 128 (one value a trip of the loop over TILE_K lanes) reads its rows once a trip, broadcast along the lanes}}
            %75 = pgpu.gather %zeros[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %76 = pgpu.cast %75 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %77 = pgpu.splat %c255_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %78 = pgpu.binary and %76, %77 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %79 = pgpu.binary sub %71, %78 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %80 = pgpu.cast %79 : !pgpu.fragment<i32, [TILE_1, TILE_K]> to !pgpu.fragment<f16, [TILE_1, TILE_K]>
            // expected-remark @+1 {{pgpu-reuse-input-reads: a read whose lane coordinate is k / 128 (one value a trip of the loop over TILE_K lanes) reads its rows once a trip, broadcast along the lanes}}
            %81 = pgpu.gather %scales[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %82 = pgpu.binary mul %80, %81 : !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %83 = pgpu.splat %cst : f16 -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %84 = pgpu.select %60, %82, %83 : !pgpu.fragment<i1, [TILE_1, TILE_K]>, !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %85 = pgpu.transpose %84 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %86 = pgpu.contract %54, %85, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %86 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %40 = pgpu.cast %39 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<f16, [TILE_0, TILE_1]>
          %41 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %42 = pgpu.broadcast %34 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %43 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %44 = pgpu.broadcast %36 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %45 = pgpu.binary and %43, %44 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %40, %y[%41, %42] valid %45 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f16, [TILE_0, TILE_1]>, !pgpu.view<f16, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
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

// COM: Must not fire: the groups are 96 wide, which TILE_K 64 and 128 do not divide (a trip may cross a
// COM: group): the zero points and scales keep their [TILE_1, TILE_K] reads.
// CHECK-LABEL: pgpu.kernel @group_96
// CHECK: pgpu.gather %zeros[{{.*}}] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
// CHECK: pgpu.gather %scales[{{.*}}] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @group_96(%x: !pgpu.view<f16, [M, K], in>, %wq: !pgpu.view<i8, [N, KH], in>, %scales: !pgpu.view<f16, [N, G], in>, %zeros: !pgpu.view<i8, [N, G], in>, %y: !pgpu.view<f16, [M, N], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %c0_i8 = arith.constant 0 : i8
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c255_i32 = arith.constant 255 : i32
    %c128 = arith.constant 96 : index
    %c15_i32 = arith.constant 15 : i32
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %wq[0] : !pgpu.view<i8, [N, KH], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.param "TILE_0" : index
    %10 = pgpu.ceil_div %4, %9 : index
    %11 = pgpu.param "TILE_1" : index
    %12 = pgpu.ceil_div %6, %11 : index
    %13 = pgpu.binary mul %10, %12 : index
    %14 = pgpu.param "PERSIST" : index
    %15 = pgpu.binary mul %14, %c132 : index
    %16 = pgpu.binary min %13, %15 : index
    pgpu.program_space(%16) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %13 step %16 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%13) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %17 = pgpu.param "GROUP_0" : index
          %18 = pgpu.binary mul %17, %12 : index
          %19 = pgpu.binary div %arg2, %18 : index
          %20 = pgpu.binary mul %19, %17 : index
          %21 = pgpu.binary sub %10, %20 : index
          %22 = pgpu.binary min %21, %17 : index
          %23 = pgpu.binary max %22, %c1 : index
          %24 = pgpu.binary mul %19, %18 : index
          %25 = pgpu.binary sub %arg2, %24 : index
          %26 = pgpu.binary rem %25, %23 : index
          %27 = pgpu.binary add %20, %26 : index
          %28 = pgpu.binary div %25, %23 : index
          %29 = pgpu.binary mul %27, %9 : index
          %30 = pgpu.iota %29 : !pgpu.fragment<index, [TILE_0]>
          %31 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %32 = pgpu.cmp lt %30, %31 : !pgpu.fragment<index, [TILE_0]>
          %33 = pgpu.binary mul %28, %11 : index
          %34 = pgpu.iota %33 : !pgpu.fragment<index, [TILE_1]>
          %35 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %36 = pgpu.cmp lt %34, %35 : !pgpu.fragment<index, [TILE_1]>
          %37 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %38 = pgpu.param "TILE_K" : index
          %39 = pgpu.for %c0 to %8 step %38 iter_args(%37 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %46 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %47 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %48 = pgpu.cmp lt %46, %47 : !pgpu.fragment<index, [TILE_K]>
            %49 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %50 = pgpu.broadcast %46 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %51 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %52 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %53 = pgpu.binary and %51, %52 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %54 = pgpu.load %x[%49, %50] valid %53 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %55 = pgpu.splat %c2 : index -> !pgpu.fragment<index, [TILE_K]>
            %56 = pgpu.binary div %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %57 = pgpu.broadcast %34 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %58 = pgpu.broadcast %56 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %59 = pgpu.broadcast %36 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %60 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %61 = pgpu.binary and %59, %60 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %62 = pgpu.gather %wq[%57, %58] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %63 = pgpu.cast %62 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %64 = pgpu.binary rem %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %65 = pgpu.splat %c4 : index -> !pgpu.fragment<index, [TILE_K]>
            %66 = pgpu.binary mul %65, %64 : !pgpu.fragment<index, [TILE_K]>
            %67 = pgpu.cast %66 : !pgpu.fragment<index, [TILE_K]> to !pgpu.fragment<i32, [TILE_K]>
            %68 = pgpu.broadcast %67 dims [1] : !pgpu.fragment<i32, [TILE_K]> -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %69 = pgpu.binary shr %63, %68 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %70 = pgpu.splat %c15_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %71 = pgpu.binary and %69, %70 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %72 = pgpu.splat %c128 : index -> !pgpu.fragment<index, [TILE_K]>
            %73 = pgpu.binary div %46, %72 : !pgpu.fragment<index, [TILE_K]>
            %74 = pgpu.broadcast %73 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %75 = pgpu.gather %zeros[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %76 = pgpu.cast %75 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %77 = pgpu.splat %c255_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %78 = pgpu.binary and %76, %77 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %79 = pgpu.binary sub %71, %78 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %80 = pgpu.cast %79 : !pgpu.fragment<i32, [TILE_1, TILE_K]> to !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %81 = pgpu.gather %scales[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %82 = pgpu.binary mul %80, %81 : !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %83 = pgpu.splat %cst : f16 -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %84 = pgpu.select %60, %82, %83 : !pgpu.fragment<i1, [TILE_1, TILE_K]>, !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %85 = pgpu.transpose %84 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %86 = pgpu.contract %54, %85, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %86 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %40 = pgpu.cast %39 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<f16, [TILE_0, TILE_1]>
          %41 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %42 = pgpu.broadcast %34 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %43 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %44 = pgpu.broadcast %36 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %45 = pgpu.binary and %43, %44 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %40, %y[%41, %42] valid %45 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f16, [TILE_0, TILE_1]>, !pgpu.view<f16, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
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

// COM: pgpu-split-contractions' chunk of the K loop: trips from min(c * chunk, K) (chunk a multiple of
// COM: TILE_K) to min(that + chunk, K). A lower bound of K runs no trip, so every trip starts at a multiple
// COM: of TILE_K and the zero points and scales are read once a trip, as in the whole loop.
// CHECK-LABEL: pgpu.kernel @gptq_chunk
// CHECK: pgpu.for %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} iter_args
// CHECK: %[[G:.*]] = pgpu.binary div %arg3, %c128{{.*}} : index
// CHECK: pgpu.gather %zeros[%{{.*}}, %[[G]]] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1]> {{.*}} -> !pgpu.fragment<i8, [TILE_1]>
// CHECK: pgpu.gather %scales[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1]> {{.*}} -> !pgpu.fragment<f16, [TILE_1]>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gptq_chunk(%x: !pgpu.view<f16, [M, K], in>, %wq: !pgpu.view<i8, [N, KH], in>, %scales: !pgpu.view<f16, [N, G], in>, %zeros: !pgpu.view<i8, [N, G], in>, %y: !pgpu.view<f16, [M, N], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %c0_i8 = arith.constant 0 : i8
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c255_i32 = arith.constant 255 : i32
    %c128 = arith.constant 128 : index
    %c15_i32 = arith.constant 15 : i32
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %wq[0] : !pgpu.view<i8, [N, KH], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.param "TILE_0" : index
    %10 = pgpu.ceil_div %4, %9 : index
    %11 = pgpu.param "TILE_1" : index
    %12 = pgpu.ceil_div %6, %11 : index
    %13 = pgpu.binary mul %10, %12 : index
    %14 = pgpu.param "PERSIST" : index
    %15 = pgpu.binary mul %14, %c132 : index
    %16 = pgpu.binary min %13, %15 : index
    pgpu.program_space(%16) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %13 step %16 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%13) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %17 = pgpu.param "GROUP_0" : index
          %18 = pgpu.binary mul %17, %12 : index
          %19 = pgpu.binary div %arg2, %18 : index
          %20 = pgpu.binary mul %19, %17 : index
          %21 = pgpu.binary sub %10, %20 : index
          %22 = pgpu.binary min %21, %17 : index
          %23 = pgpu.binary max %22, %c1 : index
          %24 = pgpu.binary mul %19, %18 : index
          %25 = pgpu.binary sub %arg2, %24 : index
          %26 = pgpu.binary rem %25, %23 : index
          %27 = pgpu.binary add %20, %26 : index
          %28 = pgpu.binary div %25, %23 : index
          %29 = pgpu.binary mul %27, %9 : index
          %30 = pgpu.iota %29 : !pgpu.fragment<index, [TILE_0]>
          %31 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %32 = pgpu.cmp lt %30, %31 : !pgpu.fragment<index, [TILE_0]>
          %33 = pgpu.binary mul %28, %11 : index
          %34 = pgpu.iota %33 : !pgpu.fragment<index, [TILE_1]>
          %35 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %36 = pgpu.cmp lt %34, %35 : !pgpu.fragment<index, [TILE_1]>
          %37 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %38 = pgpu.param "TILE_K" : index
          %steps = pgpu.ceil_div %8, %38 : index
          %chunk = pgpu.binary mul %steps, %38 : index
          %from = pgpu.binary mul %arg2, %chunk : index
          %lo = pgpu.binary min %from, %8 : index
          %past = pgpu.binary add %lo, %chunk : index
          %hi = pgpu.binary min %past, %8 : index
          %39 = pgpu.for %lo to %hi step %38 iter_args(%37 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %46 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %47 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %48 = pgpu.cmp lt %46, %47 : !pgpu.fragment<index, [TILE_K]>
            %49 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %50 = pgpu.broadcast %46 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %51 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %52 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %53 = pgpu.binary and %51, %52 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %54 = pgpu.load %x[%49, %50] valid %53 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %55 = pgpu.splat %c2 : index -> !pgpu.fragment<index, [TILE_K]>
            %56 = pgpu.binary div %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %57 = pgpu.broadcast %34 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %58 = pgpu.broadcast %56 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %59 = pgpu.broadcast %36 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %60 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %61 = pgpu.binary and %59, %60 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %62 = pgpu.gather %wq[%57, %58] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %63 = pgpu.cast %62 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %64 = pgpu.binary rem %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %65 = pgpu.splat %c4 : index -> !pgpu.fragment<index, [TILE_K]>
            %66 = pgpu.binary mul %65, %64 : !pgpu.fragment<index, [TILE_K]>
            %67 = pgpu.cast %66 : !pgpu.fragment<index, [TILE_K]> to !pgpu.fragment<i32, [TILE_K]>
            %68 = pgpu.broadcast %67 dims [1] : !pgpu.fragment<i32, [TILE_K]> -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %69 = pgpu.binary shr %63, %68 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %70 = pgpu.splat %c15_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %71 = pgpu.binary and %69, %70 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %72 = pgpu.splat %c128 : index -> !pgpu.fragment<index, [TILE_K]>
            %73 = pgpu.binary div %46, %72 : !pgpu.fragment<index, [TILE_K]>
            %74 = pgpu.broadcast %73 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            // expected-remark @+1 {{pgpu-reuse-input-reads: a read whose lane coordinate is k / 128 (one value a trip of the loop over TILE_K lanes) reads its rows once a trip, broadcast along the lanes}}
            %75 = pgpu.gather %zeros[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %76 = pgpu.cast %75 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %77 = pgpu.splat %c255_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %78 = pgpu.binary and %76, %77 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %79 = pgpu.binary sub %71, %78 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %80 = pgpu.cast %79 : !pgpu.fragment<i32, [TILE_1, TILE_K]> to !pgpu.fragment<f16, [TILE_1, TILE_K]>
            // expected-remark @+1 {{pgpu-reuse-input-reads: a read whose lane coordinate is k / 128 (one value a trip of the loop over TILE_K lanes) reads its rows once a trip, broadcast along the lanes}}
            %81 = pgpu.gather %scales[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %82 = pgpu.binary mul %80, %81 : !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %83 = pgpu.splat %cst : f16 -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %84 = pgpu.select %60, %82, %83 : !pgpu.fragment<i1, [TILE_1, TILE_K]>, !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %85 = pgpu.transpose %84 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %86 = pgpu.contract %54, %85, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %86 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %40 = pgpu.cast %39 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<f16, [TILE_0, TILE_1]>
          %41 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %42 = pgpu.broadcast %34 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %43 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %44 = pgpu.broadcast %36 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %45 = pgpu.binary and %43, %44 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %40, %y[%41, %42] valid %45 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f16, [TILE_0, TILE_1]>, !pgpu.view<f16, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
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

// COM: Must not fire: the chunk's lower bound is min(c * chunk, M), and M may lie below the loop's upper
// COM: bound min(.. + chunk, K): a trip may start off a multiple of TILE_K and cross a group.
// CHECK-LABEL: pgpu.kernel @gptq_chunk_off
// CHECK: pgpu.gather %zeros[{{.*}}] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
// CHECK: pgpu.gather %scales[{{.*}}] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gptq_chunk_off(%x: !pgpu.view<f16, [M, K], in>, %wq: !pgpu.view<i8, [N, KH], in>, %scales: !pgpu.view<f16, [N, G], in>, %zeros: !pgpu.view<i8, [N, G], in>, %y: !pgpu.view<f16, [M, N], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %c0_i8 = arith.constant 0 : i8
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c255_i32 = arith.constant 255 : i32
    %c128 = arith.constant 128 : index
    %c15_i32 = arith.constant 15 : i32
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %wq[0] : !pgpu.view<i8, [N, KH], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.param "TILE_0" : index
    %10 = pgpu.ceil_div %4, %9 : index
    %11 = pgpu.param "TILE_1" : index
    %12 = pgpu.ceil_div %6, %11 : index
    %13 = pgpu.binary mul %10, %12 : index
    %14 = pgpu.param "PERSIST" : index
    %15 = pgpu.binary mul %14, %c132 : index
    %16 = pgpu.binary min %13, %15 : index
    pgpu.program_space(%16) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %13 step %16 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%13) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %17 = pgpu.param "GROUP_0" : index
          %18 = pgpu.binary mul %17, %12 : index
          %19 = pgpu.binary div %arg2, %18 : index
          %20 = pgpu.binary mul %19, %17 : index
          %21 = pgpu.binary sub %10, %20 : index
          %22 = pgpu.binary min %21, %17 : index
          %23 = pgpu.binary max %22, %c1 : index
          %24 = pgpu.binary mul %19, %18 : index
          %25 = pgpu.binary sub %arg2, %24 : index
          %26 = pgpu.binary rem %25, %23 : index
          %27 = pgpu.binary add %20, %26 : index
          %28 = pgpu.binary div %25, %23 : index
          %29 = pgpu.binary mul %27, %9 : index
          %30 = pgpu.iota %29 : !pgpu.fragment<index, [TILE_0]>
          %31 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %32 = pgpu.cmp lt %30, %31 : !pgpu.fragment<index, [TILE_0]>
          %33 = pgpu.binary mul %28, %11 : index
          %34 = pgpu.iota %33 : !pgpu.fragment<index, [TILE_1]>
          %35 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %36 = pgpu.cmp lt %34, %35 : !pgpu.fragment<index, [TILE_1]>
          %37 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %38 = pgpu.param "TILE_K" : index
          %steps = pgpu.ceil_div %8, %38 : index
          %chunk = pgpu.binary mul %steps, %38 : index
          %from = pgpu.binary mul %arg2, %chunk : index
          %lo = pgpu.binary min %from, %4 : index
          %past = pgpu.binary add %lo, %chunk : index
          %hi = pgpu.binary min %past, %8 : index
          %39 = pgpu.for %lo to %hi step %38 iter_args(%37 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %46 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %47 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %48 = pgpu.cmp lt %46, %47 : !pgpu.fragment<index, [TILE_K]>
            %49 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %50 = pgpu.broadcast %46 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %51 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %52 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %53 = pgpu.binary and %51, %52 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %54 = pgpu.load %x[%49, %50] valid %53 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %55 = pgpu.splat %c2 : index -> !pgpu.fragment<index, [TILE_K]>
            %56 = pgpu.binary div %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %57 = pgpu.broadcast %34 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %58 = pgpu.broadcast %56 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %59 = pgpu.broadcast %36 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %60 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %61 = pgpu.binary and %59, %60 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %62 = pgpu.gather %wq[%57, %58] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %63 = pgpu.cast %62 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %64 = pgpu.binary rem %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %65 = pgpu.splat %c4 : index -> !pgpu.fragment<index, [TILE_K]>
            %66 = pgpu.binary mul %65, %64 : !pgpu.fragment<index, [TILE_K]>
            %67 = pgpu.cast %66 : !pgpu.fragment<index, [TILE_K]> to !pgpu.fragment<i32, [TILE_K]>
            %68 = pgpu.broadcast %67 dims [1] : !pgpu.fragment<i32, [TILE_K]> -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %69 = pgpu.binary shr %63, %68 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %70 = pgpu.splat %c15_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %71 = pgpu.binary and %69, %70 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %72 = pgpu.splat %c128 : index -> !pgpu.fragment<index, [TILE_K]>
            %73 = pgpu.binary div %46, %72 : !pgpu.fragment<index, [TILE_K]>
            %74 = pgpu.broadcast %73 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %75 = pgpu.gather %zeros[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %76 = pgpu.cast %75 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %77 = pgpu.splat %c255_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %78 = pgpu.binary and %76, %77 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %79 = pgpu.binary sub %71, %78 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %80 = pgpu.cast %79 : !pgpu.fragment<i32, [TILE_1, TILE_K]> to !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %81 = pgpu.gather %scales[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %82 = pgpu.binary mul %80, %81 : !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %83 = pgpu.splat %cst : f16 -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %84 = pgpu.select %60, %82, %83 : !pgpu.fragment<i1, [TILE_1, TILE_K]>, !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %85 = pgpu.transpose %84 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %86 = pgpu.contract %54, %85, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %86 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %40 = pgpu.cast %39 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<f16, [TILE_0, TILE_1]>
          %41 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %42 = pgpu.broadcast %34 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %43 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %44 = pgpu.broadcast %36 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %45 = pgpu.binary and %43, %44 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %40, %y[%41, %42] valid %45 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f16, [TILE_0, TILE_1]>, !pgpu.view<f16, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
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

// COM: Must not fire (the selects' removal): as @gptq_int4_gemm, but the dequantized weight is selected
// COM: against the whole validity (rows and lanes), not the lane bound alone: the zero points' and scales'
// COM: broadcasts keep their selects against the lane bound (the lanes past K hold the fill, as before).
// CHECK-LABEL: pgpu.kernel @gptq_int4_gemm_other_mask
// CHECK: %[[Z:.*]] = pgpu.gather %zeros[{{.*}}] -> !pgpu.fragment<i8, [TILE_1]>
// CHECK: %[[ZB:.*]] = pgpu.broadcast %[[Z]] dims [0]
// CHECK: pgpu.select %{{.*}}, %[[ZB]], %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_K]>, !pgpu.fragment<i8, [TILE_1, TILE_K]>
// CHECK: %[[S:.*]] = pgpu.gather %scales[{{.*}}] -> !pgpu.fragment<f16, [TILE_1]>
// CHECK: %[[SB:.*]] = pgpu.broadcast %[[S]] dims [0]
// CHECK: pgpu.select %{{.*}}, %[[SB]], %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_K]>, !pgpu.fragment<f16, [TILE_1, TILE_K]>
// CHECK: pgpu.contract
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gptq_int4_gemm_other_mask(%x: !pgpu.view<f16, [M, K], in>, %wq: !pgpu.view<i8, [N, KH], in>, %scales: !pgpu.view<f16, [N, G], in>, %zeros: !pgpu.view<i8, [N, G], in>, %y: !pgpu.view<f16, [M, N], out>) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>]} {
    %c132 = arith.constant 132 : index
    %c0_i8 = arith.constant 0 : i8
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c255_i32 = arith.constant 255 : i32
    %c128 = arith.constant 128 : index
    %c15_i32 = arith.constant 15 : i32
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %wq[0] : !pgpu.view<i8, [N, KH], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.param "TILE_0" : index
    %10 = pgpu.ceil_div %4, %9 : index
    %11 = pgpu.param "TILE_1" : index
    %12 = pgpu.ceil_div %6, %11 : index
    %13 = pgpu.binary mul %10, %12 : index
    %14 = pgpu.param "PERSIST" : index
    %15 = pgpu.binary mul %14, %c132 : index
    %16 = pgpu.binary min %13, %15 : index
    pgpu.program_space(%16) {
    ^bb0(%arg0: index):
      pgpu.for %arg0 to %13 step %16 {
      ^bb0(%arg1: index):
        pgpu.execution_group %arg1 extents(%13) segment 0 roles ["grouped tiles"] {
        ^bb0(%arg2: index):
          %17 = pgpu.param "GROUP_0" : index
          %18 = pgpu.binary mul %17, %12 : index
          %19 = pgpu.binary div %arg2, %18 : index
          %20 = pgpu.binary mul %19, %17 : index
          %21 = pgpu.binary sub %10, %20 : index
          %22 = pgpu.binary min %21, %17 : index
          %23 = pgpu.binary max %22, %c1 : index
          %24 = pgpu.binary mul %19, %18 : index
          %25 = pgpu.binary sub %arg2, %24 : index
          %26 = pgpu.binary rem %25, %23 : index
          %27 = pgpu.binary add %20, %26 : index
          %28 = pgpu.binary div %25, %23 : index
          %29 = pgpu.binary mul %27, %9 : index
          %30 = pgpu.iota %29 : !pgpu.fragment<index, [TILE_0]>
          %31 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %32 = pgpu.cmp lt %30, %31 : !pgpu.fragment<index, [TILE_0]>
          %33 = pgpu.binary mul %28, %11 : index
          %34 = pgpu.iota %33 : !pgpu.fragment<index, [TILE_1]>
          %35 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
          %36 = pgpu.cmp lt %34, %35 : !pgpu.fragment<index, [TILE_1]>
          %37 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
          %38 = pgpu.param "TILE_K" : index
          %39 = pgpu.for %c0 to %8 step %38 iter_args(%37 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
          ^bb0(%arg3: index, %arg4: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
            %46 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_K]>
            %47 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_K]>
            %48 = pgpu.cmp lt %46, %47 : !pgpu.fragment<index, [TILE_K]>
            %49 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %50 = pgpu.broadcast %46 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %51 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %52 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %53 = pgpu.binary and %51, %52 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %54 = pgpu.load %x[%49, %50] valid %53 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
            %55 = pgpu.splat %c2 : index -> !pgpu.fragment<index, [TILE_K]>
            %56 = pgpu.binary div %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %57 = pgpu.broadcast %34 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %58 = pgpu.broadcast %56 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            %59 = pgpu.broadcast %36 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %60 = pgpu.broadcast %48 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %61 = pgpu.binary and %59, %60 : !pgpu.fragment<i1, [TILE_1, TILE_K]>
            %62 = pgpu.gather %wq[%57, %58] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %63 = pgpu.cast %62 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %64 = pgpu.binary rem %46, %55 : !pgpu.fragment<index, [TILE_K]>
            %65 = pgpu.splat %c4 : index -> !pgpu.fragment<index, [TILE_K]>
            %66 = pgpu.binary mul %65, %64 : !pgpu.fragment<index, [TILE_K]>
            %67 = pgpu.cast %66 : !pgpu.fragment<index, [TILE_K]> to !pgpu.fragment<i32, [TILE_K]>
            %68 = pgpu.broadcast %67 dims [1] : !pgpu.fragment<i32, [TILE_K]> -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %69 = pgpu.binary shr %63, %68 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %70 = pgpu.splat %c15_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %71 = pgpu.binary and %69, %70 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %72 = pgpu.splat %c128 : index -> !pgpu.fragment<index, [TILE_K]>
            %73 = pgpu.binary div %46, %72 : !pgpu.fragment<index, [TILE_K]>
            %74 = pgpu.broadcast %73 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_1, TILE_K]>
            // expected-remark @+1 {{pgpu-reuse-input-reads: a read whose lane coordinate is k / 128 (one value a trip of the loop over TILE_K lanes) reads its rows once a trip, broadcast along the lanes}}
            %75 = pgpu.gather %zeros[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %c0_i8 : i8 : !pgpu.view<i8, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
            %76 = pgpu.cast %75 : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %77 = pgpu.splat %c255_i32 : i32 -> !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %78 = pgpu.binary and %76, %77 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %79 = pgpu.binary sub %71, %78 : !pgpu.fragment<i32, [TILE_1, TILE_K]>
            %80 = pgpu.cast %79 : !pgpu.fragment<i32, [TILE_1, TILE_K]> to !pgpu.fragment<f16, [TILE_1, TILE_K]>
            // expected-remark @+1 {{pgpu-reuse-input-reads: a read whose lane coordinate is k / 128 (one value a trip of the loop over TILE_K lanes) reads its rows once a trip, broadcast along the lanes}}
            %81 = pgpu.gather %scales[%57, %74] valid %61 : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %cst : f16 : !pgpu.view<f16, [N, G], in>[!pgpu.fragment<index, [TILE_1, TILE_K]>, !pgpu.fragment<index, [TILE_1, TILE_K]>] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %82 = pgpu.binary mul %80, %81 : !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %83 = pgpu.splat %cst : f16 -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %84 = pgpu.select %61, %82, %83 : !pgpu.fragment<i1, [TILE_1, TILE_K]>, !pgpu.fragment<f16, [TILE_1, TILE_K]>
            %85 = pgpu.transpose %84 [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
            %86 = pgpu.contract %54, %85, %arg4 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            pgpu.yield %86 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
          }
          %40 = pgpu.cast %39 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<f16, [TILE_0, TILE_1]>
          %41 = pgpu.broadcast %30 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %42 = pgpu.broadcast %34 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
          %43 = pgpu.broadcast %32 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %44 = pgpu.broadcast %36 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
          %45 = pgpu.binary and %43, %44 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
          pgpu.store %40, %y[%41, %42] valid %45 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f16, [TILE_0, TILE_1]>, !pgpu.view<f16, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
          pgpu.yield
        } {roles = ["grouped tiles"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
