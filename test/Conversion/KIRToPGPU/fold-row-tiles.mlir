// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: A row kernel whose region fold holds no contraction (logsumexp as a fold of (max, rescaled
// COM: sum): bench/corpus/41_row_logsumexp_b once kir-flatten-records made its record a tuple).
// COM: Before: BLOCK_M lanes of rows, [BLOCK_M, BLOCK_N] tiles of 64x64 (128 programs at 8192
// COM: rows). After: no lanes, one row per program as the row path of the same math written as two
// COM: reductions, its fold over BLOCK_N-wide row blocks with form-blocking's BLOCK candidates and
// COM: default (512), covering N (a row that fits one block is one tile, read once, as the row
// COM: path stages it): [BLOCK_N] fragments, scalar summaries, the result stored at the member.
// CHECK-LABEL: pgpu.kernel @tuple_lse
// CHECK-SAME: params = [#pgpu.param<"BLOCK_N", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">]
// CHECK-NOT: BLOCK_M
// CHECK: pgpu.region_fold %{{.*}} to %{{.*}} step %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32) operands(%{{.*}}, %{{.*}} : !pgpu.view<f32, [M, N], in>, index) -> (f32, f32) summarize {
// CHECK: pgpu.load %{{.*}}[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_N]> fill {{.*}} -> !pgpu.fragment<f32, [BLOCK_N]>
// CHECK: pgpu.reduce %{{.*}} axes [0] identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [BLOCK_N]>) -> (f32)
// CHECK: pgpu.unary exp %{{.*}} : !pgpu.fragment<f32, [BLOCK_N]>
// CHECK: } combine {
// CHECK: pgpu.store %{{.*}}, %lse[%{{.*}}] valid %{{.*}} : i1 : f32
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @tuple_lse(%x: !kir.view<f32, [M, N], in>, %lse: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %1
    %3 = kir.domain %c0 to %0
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    kir.parallel %3 {
    ^bb0(%arg0: index):
      %4 = kir.load %x[%arg0, %2] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %5:2 = kir.region_fold sources(%4 : tensor<?xf32>) axis 0 identity(%cst, %cst_0 : f32, f32) -> (f32, f32) summarize {
      ^bb0(%arg1: tensor<?xf32>):
        %cst_1 = arith.constant 0xFF800000 : f32
        %cst_2 = arith.constant 0.000000e+00 : f32
        %8 = kir.reduce %arg1 axes [0] identity(%cst_1 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg2: f32, %arg3: f32):
          %13 = kir.binary max %arg2, %arg3 : f32
          kir.yield %13 : f32
        }
        %9 = kir.broadcast_as %8 to %arg1 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %10 = kir.binary sub %arg1, %9 : tensor<?xf32>
        %11 = kir.unary exp %10 : tensor<?xf32>
        %12 = kir.reduce %11 axes [0] identity(%cst_2 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg2: f32, %arg3: f32):
          %13 = kir.binary add %arg2, %arg3 : f32
          kir.yield %13 : f32
        }
        kir.yield %8, %12 : f32, f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32, %arg3: f32, %arg4: f32):
        %cst_1 = arith.constant 1.000000e+00 : f32
        %8 = kir.binary max %arg1, %arg3 : f32
        %9 = kir.cmp eq %arg1, %8 : f32
        %10 = kir.binary sub %arg1, %8 : f32
        %11 = kir.unary exp %10 : f32
        %12 = kir.select %9, %cst_1, %11 : i1, f32
        %13 = kir.binary mul %arg2, %12 : f32
        %14 = kir.cmp eq %arg3, %8 : f32
        %15 = kir.binary sub %arg3, %8 : f32
        %16 = kir.unary exp %15 : f32
        %17 = kir.select %14, %cst_1, %16 : i1, f32
        %18 = kir.binary mul %arg4, %17 : f32
        %19 = kir.binary add %13, %18 : f32
        kir.yield %8, %19 : f32, f32
      }
      %6 = kir.unary log %5#1 : f32
      %7 = kir.binary add %5#0, %6 : f32
      kir.store %7, %lse[%arg0] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}


// -----

// COM: Must not fire: a fold whose summarize holds a contraction (scores of a query row against a
// COM: key tile) keeps BLOCK_M lanes, so a block of rows shares each key tile in one tile product,
// COM: and its 64-wide tiles from the tl.dot candidates.
// CHECK-LABEL: pgpu.kernel @score_sum
// CHECK-SAME: #pgpu.param<"BLOCK_M", [16, 32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_N", [16, 32, 64, 128, 256], 64>
// CHECK: pgpu.region_fold
// CHECK: pgpu.contract
// CHECK-SAME: -> !pgpu.fragment<f32, [BLOCK_M, BLOCK_N]>
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @score_sum(%q: !kir.view<f32, [M, D], in>, %k: !kir.view<f32, [N, D], in>, %y: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "D"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %1
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    kir.parallel %5 {
    ^bb0(%arg0: index):
      %6 = kir.load %k[%4, %3] : !kir.view<f32, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %7 = kir.load %q[%arg0, %3] : !kir.view<f32, [M, D], in>[index, !kir.domain] -> tensor<?xf32>
      %8 = kir.region_fold sources(%6 : tensor<?x?xf32>) axis 0 identity(%cst : f32) operands(%7 : tensor<?xf32>) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf32>, %arg2: tensor<?xf32>):
        %cst_0 = arith.constant 0.000000e+00 : f32
        %9 = kir.contract %arg2, %arg1 reduce([0], [1]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
        %10 = kir.reduce %9 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg3: f32, %arg4: f32):
          %11 = kir.binary add %arg3, %arg4 : f32
          kir.yield %11 : f32
        }
        kir.yield %10 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %9 = kir.binary add %arg1, %arg2 : f32
        kir.yield %9 : f32
      }
      kir.store %8, %y[%arg0] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

