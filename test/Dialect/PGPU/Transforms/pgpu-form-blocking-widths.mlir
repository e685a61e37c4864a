// RUN: tessel-opt %s -split-input-file -pgpu-form-blocking | FileCheck %s

// Issue 42: blocked loops over constant ranges of different widths (corpus 120's absmax over a group's
// 128 columns, then its 64 packed pairs): BLOCK covers the widest, "128" (no block needs more lanes at
// any call), so a call's default binds BLOCK 128 and pgpu-stage-rows' single-iteration path runs.
// CHECK-LABEL: pgpu.kernel @int4_group_quant
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "128">
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @int4_group_quant(%x: !pgpu.view<bf16, [M, N], in>, %packed: !pgpu.view<i8, [M, NH], out>, %scales: !pgpu.view<f32, [M, G], out>) {
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
        %12 = pgpu.range_reduce %c0 to %3 identity(%cst_2 : f32) -> (f32) element {
        ^bb0(%arg3: index):
          %15 = pgpu.binary add %11, %arg3 : index
          %16 = pgpu.gather %x[%arg1, %15] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, index] -> bf16
          %17 = pgpu.cast %16 : bf16 to f32
          %18 = pgpu.unary abs %17 : f32
          pgpu.yield %18 : f32
        } combine {
        ^bb0(%arg3: f32, %arg4: f32):
          %15 = pgpu.binary max %arg3, %arg4 : f32
          pgpu.yield %15 : f32
        }
        %13 = pgpu.binary div %12, %cst_1 : f32
        pgpu.store %13, %scales[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [M, G], out>[index, index]
        %14 = pgpu.binary mul %arg2, %c64 : index
        pgpu.foreach %c0 to %5 {
        ^bb0(%arg3: index):
          %15 = pgpu.binary mul %c2, %arg3 : index
          %16 = pgpu.binary add %11, %15 : index
          %17 = pgpu.gather %x[%arg1, %16] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, index] -> bf16
          %18 = pgpu.cast %17 : bf16 to f32
          %19 = pgpu.binary div %18, %13 : f32
          %20 = pgpu.unary round %19 : f32
          %21 = pgpu.binary max %20, %cst_0 : f32
          %22 = pgpu.binary min %21, %cst_1 : f32
          %23 = pgpu.cast %22 : f32 to i32
          %24 = pgpu.binary and %23, %c15_i32 : i32
          %25 = pgpu.binary add %16, %c1 : index
          %26 = pgpu.gather %x[%arg1, %25] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, index] -> bf16
          %27 = pgpu.cast %26 : bf16 to f32
          %28 = pgpu.binary div %27, %13 : f32
          %29 = pgpu.unary round %28 : f32
          %30 = pgpu.binary max %29, %cst_0 : f32
          %31 = pgpu.binary min %30, %cst_1 : f32
          %32 = pgpu.cast %31 : f32 to i32
          %33 = pgpu.binary and %32, %c15_i32 : i32
          %34 = pgpu.binary shl %33, %c4_i32 : i32
          %35 = pgpu.binary or %24, %34 : i32
          %36 = pgpu.cast %35 : i32 to i8
          %37 = pgpu.binary add %14, %arg3 : index
          pgpu.scatter %36, %packed[%arg1, %37] valid %true : i1 : i8, !pgpu.view<i8, [M, NH], out>[index, index]
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

// COM: must not cover: a constant range beside a runtime one ([0, 128) and [0, G)).
// CHECK-LABEL: pgpu.kernel @runtime_pairs
// CHECK-NOT: covers
// CHECK: pgpu.for
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @runtime_pairs(%x: !pgpu.view<bf16, [M, N], in>, %packed: !pgpu.view<i8, [M, NH], out>, %scales: !pgpu.view<f32, [M, G], out>) {
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
        %12 = pgpu.range_reduce %c0 to %3 identity(%cst_2 : f32) -> (f32) element {
        ^bb0(%arg3: index):
          %15 = pgpu.binary add %11, %arg3 : index
          %16 = pgpu.gather %x[%arg1, %15] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, index] -> bf16
          %17 = pgpu.cast %16 : bf16 to f32
          %18 = pgpu.unary abs %17 : f32
          pgpu.yield %18 : f32
        } combine {
        ^bb0(%arg3: f32, %arg4: f32):
          %15 = pgpu.binary max %arg3, %arg4 : f32
          pgpu.yield %15 : f32
        }
        %13 = pgpu.binary div %12, %cst_1 : f32
        pgpu.store %13, %scales[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [M, G], out>[index, index]
        %14 = pgpu.binary mul %arg2, %c64 : index
        pgpu.foreach %c0 to %1 {
        ^bb0(%arg3: index):
          %15 = pgpu.binary mul %c2, %arg3 : index
          %16 = pgpu.binary add %11, %15 : index
          %17 = pgpu.gather %x[%arg1, %16] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, index] -> bf16
          %18 = pgpu.cast %17 : bf16 to f32
          %19 = pgpu.binary div %18, %13 : f32
          %20 = pgpu.unary round %19 : f32
          %21 = pgpu.binary max %20, %cst_0 : f32
          %22 = pgpu.binary min %21, %cst_1 : f32
          %23 = pgpu.cast %22 : f32 to i32
          %24 = pgpu.binary and %23, %c15_i32 : i32
          %25 = pgpu.binary add %16, %c1 : index
          %26 = pgpu.gather %x[%arg1, %25] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [M, N], in>[index, index] -> bf16
          %27 = pgpu.cast %26 : bf16 to f32
          %28 = pgpu.binary div %27, %13 : f32
          %29 = pgpu.unary round %28 : f32
          %30 = pgpu.binary max %29, %cst_0 : f32
          %31 = pgpu.binary min %30, %cst_1 : f32
          %32 = pgpu.cast %31 : f32 to i32
          %33 = pgpu.binary and %32, %c15_i32 : i32
          %34 = pgpu.binary shl %33, %c4_i32 : i32
          %35 = pgpu.binary or %24, %34 : i32
          %36 = pgpu.cast %35 : i32 to i8
          %37 = pgpu.binary add %14, %arg3 : index
          pgpu.scatter %36, %packed[%arg1, %37] valid %true : i1 : i8, !pgpu.view<i8, [M, NH], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
