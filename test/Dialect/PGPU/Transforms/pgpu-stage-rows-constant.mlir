// RUN: tessel-opt %s -split-input-file -pgpu-stage-rows | FileCheck %s
// RUN: tessel-opt %s -split-input-file -pgpu-stage-rows -pgpu-pack-rows | FileCheck %s --check-prefix=PACK

// Issue 42: a row's loops over constant ranges of different lengths reading a common view (corpus 120's
// absmax over a group's 128 columns, then its 64 packed pairs read at 2p and 2p + 1 and scattered at
// g * 64 + p): when the longest, 128 lanes, fits a block, every loop runs once, inlined at iv = 0 under
// `0 < 128 && 128 - 0 <= BLOCK`; the else-branch keeps the loops. pgpu-pack-rows then packs the staged
// row path: its scatter's lanes are at unit stride (g * 64 + iota), which packs like a store.
// CHECK-LABEL: pgpu.kernel @int4_group_quant
// CHECK: %[[BLOCK:.*]] = pgpu.param "BLOCK" : index
// CHECK: %[[LO:.*]] = arith.constant 0 : index
// CHECK: %[[HI:.*]] = arith.constant 128 : index
// CHECK: %[[EXTENT:.*]] = pgpu.binary sub %[[HI]], %[[LO]] : index
// CHECK: %[[NONEMPTY:.*]] = pgpu.cmp lt %[[LO]], %[[HI]] : index
// CHECK: %[[FITS:.*]] = pgpu.cmp le %[[EXTENT]], %[[BLOCK]] : index
// CHECK: %[[ONCE:.*]] = pgpu.binary and %[[NONEMPTY]], %[[FITS]] : i1
// CHECK: pgpu.if %[[ONCE]] {
// CHECK-NOT: pgpu.for
// CHECK: pgpu.gather %x
// CHECK: pgpu.reduce
// CHECK: pgpu.store %{{.*}}, %scales
// CHECK: pgpu.gather %x
// CHECK: pgpu.gather %x
// CHECK: pgpu.scatter %{{.*}}, %packed
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: pgpu.for
// PACK-LABEL: pgpu.kernel @int4_group_quant
// PACK-SAME: #pgpu.param<"ROWS"
// PACK: pgpu.scatter %{{.*}}, %packed[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [ROWS, BLOCK]> : !pgpu.fragment<i8, [ROWS, BLOCK]>
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @int4_group_quant(%x: !pgpu.view<bf16, [M, N], in>, %packed: !pgpu.view<i8, [M, NH], out>, %scales: !pgpu.view<f32, [M, G], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "128">]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %cst_0 = arith.constant -8.000000e+00 : f32
    %c2 = arith.constant 2 : index
    %cst_1 = arith.constant 7.000000e+00 : f32
    %cst_2 = arith.constant 0xFF800000 : f32
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [M, N], in>
    %1 = pgpu.extent %scales[1] : !pgpu.view<f32, [M, G], out>
    %2 = pgpu.ceil_div %c128, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %c64, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %0, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %1, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.binary mul %7, %9 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%7, %9) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %11 = pgpu.binary mul %arg2, %c128 : index
        %12 = pgpu.param "BLOCK" : index
        %13 = pgpu.for %c0 to %3 step %12 iter_args(%cst_2 : f32) -> f32 {
        ^bb0(%arg3: index, %arg4: f32):
          %16 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
          %17 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
          %18 = pgpu.cmp lt %16, %17 : !pgpu.fragment<index, [BLOCK]>
          %19 = pgpu.splat %11 : index -> !pgpu.fragment<index, [BLOCK]>
          %20 = pgpu.binary add %19, %16 : !pgpu.fragment<index, [BLOCK]>
          %21 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %22 = pgpu.binary and %21, %18 : !pgpu.fragment<i1, [BLOCK]>
          %23 = pgpu.gather %x[%arg1, %20] valid %22 : !pgpu.fragment<i1, [BLOCK]> fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %24 = pgpu.cast %23 : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %25 = pgpu.unary abs %24 : !pgpu.fragment<f32, [BLOCK]>
          %26 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %27 = pgpu.select %22, %25, %26 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %28 = pgpu.reduce %27 axes [0] identity(%cst_2 : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%arg5: f32, %arg6: f32):
            %30 = pgpu.binary max %arg5, %arg6 : f32
            pgpu.yield %30 : f32
          }
          %29 = pgpu.binary max %arg4, %28 : f32
          pgpu.yield %29 : f32
        }
        %14 = pgpu.binary div %13, %cst_1 : f32
        pgpu.store %14, %scales[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [M, G], out>[index, index]
        %15 = pgpu.binary mul %arg2, %c64 : index
        pgpu.for %c0 to %5 step %12 {
        ^bb0(%arg3: index):
          %16 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
          %17 = pgpu.splat %5 : index -> !pgpu.fragment<index, [BLOCK]>
          %18 = pgpu.cmp lt %16, %17 : !pgpu.fragment<index, [BLOCK]>
          %19 = pgpu.splat %c2 : index -> !pgpu.fragment<index, [BLOCK]>
          %20 = pgpu.binary mul %19, %16 : !pgpu.fragment<index, [BLOCK]>
          %21 = pgpu.splat %11 : index -> !pgpu.fragment<index, [BLOCK]>
          %22 = pgpu.binary add %21, %20 : !pgpu.fragment<index, [BLOCK]>
          %23 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %24 = pgpu.binary and %23, %18 : !pgpu.fragment<i1, [BLOCK]>
          %25 = pgpu.gather %x[%arg1, %22] valid %24 : !pgpu.fragment<i1, [BLOCK]> fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %26 = pgpu.cast %25 : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %27 = pgpu.splat %14 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %28 = pgpu.binary div %26, %27 : !pgpu.fragment<f32, [BLOCK]>
          %29 = pgpu.unary round %28 : !pgpu.fragment<f32, [BLOCK]>
          %30 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %31 = pgpu.binary max %29, %30 : !pgpu.fragment<f32, [BLOCK]>
          %32 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %33 = pgpu.binary min %31, %32 : !pgpu.fragment<f32, [BLOCK]>
          %34 = pgpu.cast %33 : !pgpu.fragment<f32, [BLOCK]> to !pgpu.fragment<i32, [BLOCK]>
          %35 = pgpu.splat %c15_i32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
          %36 = pgpu.binary and %34, %35 : !pgpu.fragment<i32, [BLOCK]>
          %37 = pgpu.splat %c1 : index -> !pgpu.fragment<index, [BLOCK]>
          %38 = pgpu.binary add %22, %37 : !pgpu.fragment<index, [BLOCK]>
          %39 = pgpu.gather %x[%arg1, %38] valid %24 : !pgpu.fragment<i1, [BLOCK]> fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %40 = pgpu.cast %39 : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %41 = pgpu.binary div %40, %27 : !pgpu.fragment<f32, [BLOCK]>
          %42 = pgpu.unary round %41 : !pgpu.fragment<f32, [BLOCK]>
          %43 = pgpu.binary max %42, %30 : !pgpu.fragment<f32, [BLOCK]>
          %44 = pgpu.binary min %43, %32 : !pgpu.fragment<f32, [BLOCK]>
          %45 = pgpu.cast %44 : !pgpu.fragment<f32, [BLOCK]> to !pgpu.fragment<i32, [BLOCK]>
          %46 = pgpu.binary and %45, %35 : !pgpu.fragment<i32, [BLOCK]>
          %47 = pgpu.splat %c4_i32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
          %48 = pgpu.binary shl %46, %47 : !pgpu.fragment<i32, [BLOCK]>
          %49 = pgpu.binary or %36, %48 : !pgpu.fragment<i32, [BLOCK]>
          %50 = pgpu.cast %49 : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<i8, [BLOCK]>
          %51 = pgpu.splat %15 : index -> !pgpu.fragment<index, [BLOCK]>
          %52 = pgpu.binary add %51, %16 : !pgpu.fragment<index, [BLOCK]>
          pgpu.scatter %50, %packed[%arg1, %52] valid %24 : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i8, [BLOCK]>, !pgpu.view<i8, [M, NH], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: must not fire: the loops' ranges differ at run time ([0, 128) and [0, G)): no one block is known to
// COM: hold both; nothing packs (no staged row path).
// CHECK-LABEL: pgpu.kernel @runtime_pairs
// CHECK-NOT: pgpu.if
// CHECK: pgpu.for
// CHECK: pgpu.for
// CHECK-NOT: pgpu.if
// PACK-LABEL: pgpu.kernel @runtime_pairs
// PACK-NOT: ROWS
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @runtime_pairs(%x: !pgpu.view<bf16, [M, N], in>, %packed: !pgpu.view<i8, [M, NH], out>, %scales: !pgpu.view<f32, [M, G], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "128">]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %cst_0 = arith.constant -8.000000e+00 : f32
    %c2 = arith.constant 2 : index
    %cst_1 = arith.constant 7.000000e+00 : f32
    %cst_2 = arith.constant 0xFF800000 : f32
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [M, N], in>
    %1 = pgpu.extent %scales[1] : !pgpu.view<f32, [M, G], out>
    %2 = pgpu.ceil_div %c128, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %c64, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %0, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %1, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.binary mul %7, %9 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%7, %9) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %11 = pgpu.binary mul %arg2, %c128 : index
        %12 = pgpu.param "BLOCK" : index
        %13 = pgpu.for %c0 to %3 step %12 iter_args(%cst_2 : f32) -> f32 {
        ^bb0(%arg3: index, %arg4: f32):
          %16 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
          %17 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
          %18 = pgpu.cmp lt %16, %17 : !pgpu.fragment<index, [BLOCK]>
          %19 = pgpu.splat %11 : index -> !pgpu.fragment<index, [BLOCK]>
          %20 = pgpu.binary add %19, %16 : !pgpu.fragment<index, [BLOCK]>
          %21 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %22 = pgpu.binary and %21, %18 : !pgpu.fragment<i1, [BLOCK]>
          %23 = pgpu.gather %x[%arg1, %20] valid %22 : !pgpu.fragment<i1, [BLOCK]> fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %24 = pgpu.cast %23 : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %25 = pgpu.unary abs %24 : !pgpu.fragment<f32, [BLOCK]>
          %26 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %27 = pgpu.select %22, %25, %26 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %28 = pgpu.reduce %27 axes [0] identity(%cst_2 : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%arg5: f32, %arg6: f32):
            %30 = pgpu.binary max %arg5, %arg6 : f32
            pgpu.yield %30 : f32
          }
          %29 = pgpu.binary max %arg4, %28 : f32
          pgpu.yield %29 : f32
        }
        %14 = pgpu.binary div %13, %cst_1 : f32
        pgpu.store %14, %scales[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [M, G], out>[index, index]
        %15 = pgpu.binary mul %arg2, %c64 : index
        pgpu.for %c0 to %1 step %12 {
        ^bb0(%arg3: index):
          %16 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
          %17 = pgpu.splat %5 : index -> !pgpu.fragment<index, [BLOCK]>
          %18 = pgpu.cmp lt %16, %17 : !pgpu.fragment<index, [BLOCK]>
          %19 = pgpu.splat %c2 : index -> !pgpu.fragment<index, [BLOCK]>
          %20 = pgpu.binary mul %19, %16 : !pgpu.fragment<index, [BLOCK]>
          %21 = pgpu.splat %11 : index -> !pgpu.fragment<index, [BLOCK]>
          %22 = pgpu.binary add %21, %20 : !pgpu.fragment<index, [BLOCK]>
          %23 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %24 = pgpu.binary and %23, %18 : !pgpu.fragment<i1, [BLOCK]>
          %25 = pgpu.gather %x[%arg1, %22] valid %24 : !pgpu.fragment<i1, [BLOCK]> fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %26 = pgpu.cast %25 : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %27 = pgpu.splat %14 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %28 = pgpu.binary div %26, %27 : !pgpu.fragment<f32, [BLOCK]>
          %29 = pgpu.unary round %28 : !pgpu.fragment<f32, [BLOCK]>
          %30 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %31 = pgpu.binary max %29, %30 : !pgpu.fragment<f32, [BLOCK]>
          %32 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %33 = pgpu.binary min %31, %32 : !pgpu.fragment<f32, [BLOCK]>
          %34 = pgpu.cast %33 : !pgpu.fragment<f32, [BLOCK]> to !pgpu.fragment<i32, [BLOCK]>
          %35 = pgpu.splat %c15_i32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
          %36 = pgpu.binary and %34, %35 : !pgpu.fragment<i32, [BLOCK]>
          %37 = pgpu.splat %c1 : index -> !pgpu.fragment<index, [BLOCK]>
          %38 = pgpu.binary add %22, %37 : !pgpu.fragment<index, [BLOCK]>
          %39 = pgpu.gather %x[%arg1, %38] valid %24 : !pgpu.fragment<i1, [BLOCK]> fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %40 = pgpu.cast %39 : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %41 = pgpu.binary div %40, %27 : !pgpu.fragment<f32, [BLOCK]>
          %42 = pgpu.unary round %41 : !pgpu.fragment<f32, [BLOCK]>
          %43 = pgpu.binary max %42, %30 : !pgpu.fragment<f32, [BLOCK]>
          %44 = pgpu.binary min %43, %32 : !pgpu.fragment<f32, [BLOCK]>
          %45 = pgpu.cast %44 : !pgpu.fragment<f32, [BLOCK]> to !pgpu.fragment<i32, [BLOCK]>
          %46 = pgpu.binary and %45, %35 : !pgpu.fragment<i32, [BLOCK]>
          %47 = pgpu.splat %c4_i32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
          %48 = pgpu.binary shl %46, %47 : !pgpu.fragment<i32, [BLOCK]>
          %49 = pgpu.binary or %36, %48 : !pgpu.fragment<i32, [BLOCK]>
          %50 = pgpu.cast %49 : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<i8, [BLOCK]>
          %51 = pgpu.splat %15 : index -> !pgpu.fragment<index, [BLOCK]>
          %52 = pgpu.binary add %51, %16 : !pgpu.fragment<index, [BLOCK]>
          pgpu.scatter %50, %packed[%arg1, %52] valid %24 : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i8, [BLOCK]>, !pgpu.view<i8, [M, NH], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: fires (stage-rows), but pgpu-pack-rows must not: the pairs scattered at g * 128 + 2p (lanes at
// COM: stride 2, 163's in-place rotate-half form, measured slower packed) keep one row per program.
// CHECK-LABEL: pgpu.kernel @strided_pairs
// CHECK: pgpu.if
// PACK-LABEL: pgpu.kernel @strided_pairs
// PACK-NOT: ROWS
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @strided_pairs(%x: !pgpu.view<bf16, [M, N], in>, %packed: !pgpu.view<i8, [M, NH], out>, %scales: !pgpu.view<f32, [M, G], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "128">]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %cst_0 = arith.constant -8.000000e+00 : f32
    %c2 = arith.constant 2 : index
    %cst_1 = arith.constant 7.000000e+00 : f32
    %cst_2 = arith.constant 0xFF800000 : f32
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [M, N], in>
    %1 = pgpu.extent %scales[1] : !pgpu.view<f32, [M, G], out>
    %2 = pgpu.ceil_div %c128, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %c64, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %0, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %1, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.binary mul %7, %9 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%7, %9) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %11 = pgpu.binary mul %arg2, %c128 : index
        %12 = pgpu.param "BLOCK" : index
        %13 = pgpu.for %c0 to %3 step %12 iter_args(%cst_2 : f32) -> f32 {
        ^bb0(%arg3: index, %arg4: f32):
          %16 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
          %17 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
          %18 = pgpu.cmp lt %16, %17 : !pgpu.fragment<index, [BLOCK]>
          %19 = pgpu.splat %11 : index -> !pgpu.fragment<index, [BLOCK]>
          %20 = pgpu.binary add %19, %16 : !pgpu.fragment<index, [BLOCK]>
          %21 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %22 = pgpu.binary and %21, %18 : !pgpu.fragment<i1, [BLOCK]>
          %23 = pgpu.gather %x[%arg1, %20] valid %22 : !pgpu.fragment<i1, [BLOCK]> fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %24 = pgpu.cast %23 : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %25 = pgpu.unary abs %24 : !pgpu.fragment<f32, [BLOCK]>
          %26 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %27 = pgpu.select %22, %25, %26 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %28 = pgpu.reduce %27 axes [0] identity(%cst_2 : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%arg5: f32, %arg6: f32):
            %30 = pgpu.binary max %arg5, %arg6 : f32
            pgpu.yield %30 : f32
          }
          %29 = pgpu.binary max %arg4, %28 : f32
          pgpu.yield %29 : f32
        }
        %14 = pgpu.binary div %13, %cst_1 : f32
        pgpu.store %14, %scales[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [M, G], out>[index, index]
        %15 = pgpu.binary mul %arg2, %c64 : index
        pgpu.for %c0 to %5 step %12 {
        ^bb0(%arg3: index):
          %16 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
          %17 = pgpu.splat %5 : index -> !pgpu.fragment<index, [BLOCK]>
          %18 = pgpu.cmp lt %16, %17 : !pgpu.fragment<index, [BLOCK]>
          %19 = pgpu.splat %c2 : index -> !pgpu.fragment<index, [BLOCK]>
          %20 = pgpu.binary mul %19, %16 : !pgpu.fragment<index, [BLOCK]>
          %21 = pgpu.splat %11 : index -> !pgpu.fragment<index, [BLOCK]>
          %22 = pgpu.binary add %21, %20 : !pgpu.fragment<index, [BLOCK]>
          %23 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %24 = pgpu.binary and %23, %18 : !pgpu.fragment<i1, [BLOCK]>
          %25 = pgpu.gather %x[%arg1, %22] valid %24 : !pgpu.fragment<i1, [BLOCK]> fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %26 = pgpu.cast %25 : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %27 = pgpu.splat %14 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %28 = pgpu.binary div %26, %27 : !pgpu.fragment<f32, [BLOCK]>
          %29 = pgpu.unary round %28 : !pgpu.fragment<f32, [BLOCK]>
          %30 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %31 = pgpu.binary max %29, %30 : !pgpu.fragment<f32, [BLOCK]>
          %32 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %33 = pgpu.binary min %31, %32 : !pgpu.fragment<f32, [BLOCK]>
          %34 = pgpu.cast %33 : !pgpu.fragment<f32, [BLOCK]> to !pgpu.fragment<i32, [BLOCK]>
          %35 = pgpu.splat %c15_i32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
          %36 = pgpu.binary and %34, %35 : !pgpu.fragment<i32, [BLOCK]>
          %37 = pgpu.splat %c1 : index -> !pgpu.fragment<index, [BLOCK]>
          %38 = pgpu.binary add %22, %37 : !pgpu.fragment<index, [BLOCK]>
          %39 = pgpu.gather %x[%arg1, %38] valid %24 : !pgpu.fragment<i1, [BLOCK]> fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %40 = pgpu.cast %39 : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %41 = pgpu.binary div %40, %27 : !pgpu.fragment<f32, [BLOCK]>
          %42 = pgpu.unary round %41 : !pgpu.fragment<f32, [BLOCK]>
          %43 = pgpu.binary max %42, %30 : !pgpu.fragment<f32, [BLOCK]>
          %44 = pgpu.binary min %43, %32 : !pgpu.fragment<f32, [BLOCK]>
          %45 = pgpu.cast %44 : !pgpu.fragment<f32, [BLOCK]> to !pgpu.fragment<i32, [BLOCK]>
          %46 = pgpu.binary and %45, %35 : !pgpu.fragment<i32, [BLOCK]>
          %47 = pgpu.splat %c4_i32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
          %48 = pgpu.binary shl %46, %47 : !pgpu.fragment<i32, [BLOCK]>
          %49 = pgpu.binary or %36, %48 : !pgpu.fragment<i32, [BLOCK]>
          %50 = pgpu.cast %49 : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<i8, [BLOCK]>
          %51 = pgpu.splat %15 : index -> !pgpu.fragment<index, [BLOCK]>
          %52 = pgpu.binary add %51, %16 : !pgpu.fragment<index, [BLOCK]>
          pgpu.scatter %50, %packed[%arg1, %22] valid %24 : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i8, [BLOCK]>, !pgpu.view<i8, [M, NH], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
