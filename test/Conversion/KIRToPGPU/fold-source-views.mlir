// RUN: tessel-opt %s -split-input-file -kir-to-pgpu | FileCheck %s --enable-var-scope

// COM: A classifier head's two folds after kir-online-folds: W [K, C] sliced through the view
// COM: kir.transpose [1, 0] (class axis first) and transposed back in each summarizer; the product has
// COM: the bias as its init. Before, "a contraction with an init" kept the element-wise construction.
// COM: After: the transpose pair is W itself (a [BLOCK_K, BLOCK_C] load in W's layout, no
// COM: pgpu.transpose), the logits tile one pgpu.contract with the bias added after it, and where
// COM: K > BLOCK_K the same product is a TILE_K loop carrying the [BLOCK_M, BLOCK_C] sum.
// CHECK-LABEL: pgpu.kernel @head
// CHECK-NOT: pgpu.transpose
// CHECK: pgpu.region_fold
// CHECK: %[[WT:.*]] = pgpu.load %{{.*}} -> !pgpu.fragment<f16, [BLOCK_K, BLOCK_C]>
// CHECK: %[[P:.*]] = pgpu.contract %{{.*}}, %[[WT]], %{{.*}} reduce([1], [0]) {{.*}} -> !pgpu.fragment<f32, [BLOCK_M, BLOCK_C]>
// CHECK: %[[B:.*]] = pgpu.load %{{.*}} -> !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: %[[BB:.*]] = pgpu.broadcast %[[B]] dims [1]
// CHECK: pgpu.binary add %[[P]], %[[BB]] : !pgpu.fragment<f32, [BLOCK_M, BLOCK_C]>
// CHECK: pgpu.param "TILE_K"
// CHECK: pgpu.for {{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_M, BLOCK_C]>)
// CHECK: pgpu.load %w{{.*}} -> !pgpu.fragment<f16, [TILE_K, BLOCK_C]>
// CHECK: pgpu.contract {{.*}} : !pgpu.fragment<f16, [BLOCK_M, TILE_K]>, !pgpu.fragment<f16, [TILE_K, BLOCK_C]>
// CHECK-NOT: pgpu.transpose
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @head(%x: !kir.view<f16, [M, K], in>, %w: !kir.view<f16, [K, C], in>, %b: !kir.view<f32, [C], in>, %probs: !kir.view<f32, [M, C], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %4 = kir.extent "C"
    %5 = kir.domain %c0 to %4
    %6 = kir.indices %5 : tensor<?xindex>
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    kir.parallel %2 {
    ^bb0(%arg0: index):
      %7 = kir.load %x[%arg0, %3] : !kir.view<f16, [M, K], in>[index, !kir.domain] -> tensor<?xf16>
      %8 = kir.load %w[%3, %5] : !kir.view<f16, [K, C], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %9 = kir.transpose %8 [1, 0] : tensor<?x?xf16> -> tensor<?x?xf16>
      %10 = kir.load %b[%5] : !kir.view<f32, [C], in>[!kir.domain] -> tensor<?xf32>
      %11 = kir.region_fold sources(%9, %10, %6 : tensor<?x?xf16>, tensor<?xf32>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%7 : tensor<?xf16>) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?xf32>, %arg3: tensor<?xindex>, %arg4: tensor<?xf16>):
        %19 = kir.transpose %arg1 [1, 0] : tensor<?x?xf16> -> tensor<?x?xf16>
        %20 = kir.contract %arg4, %19 init %arg2 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16>, tensor<?xf32> -> tensor<?xf32>
        %cst_1 = arith.constant 0xFF800000 : f32
        %21 = kir.reduce %20 axes [0] identity(%cst_1 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg5: f32, %arg6: f32):
          %22 = kir.binary max %arg5, %arg6 : f32
          kir.yield %22 : f32
        }
        kir.yield %21 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %19 = kir.binary max %arg1, %arg2 : f32
        kir.yield %19 : f32
      }
      %12 = kir.region_fold sources(%9, %10, %6 : tensor<?x?xf16>, tensor<?xf32>, tensor<?xindex>) axis 0 identity(%cst_0 : f32) operands(%7, %11 : tensor<?xf16>, f32) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?xf32>, %arg3: tensor<?xindex>, %arg4: tensor<?xf16>, %arg5: f32):
        %19 = kir.transpose %arg1 [1, 0] : tensor<?x?xf16> -> tensor<?x?xf16>
        %20 = kir.contract %arg4, %19 init %arg2 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16>, tensor<?xf32> -> tensor<?xf32>
        %21 = kir.broadcast_as %arg5 to %20 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %22 = kir.binary sub %20, %21 : tensor<?xf32>
        %23 = kir.unary exp %22 : tensor<?xf32>
        %cst_1 = arith.constant 0.000000e+00 : f32
        %24 = kir.reduce %23 axes [0] identity(%cst_1 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg6: f32, %arg7: f32):
          %25 = kir.binary add %arg6, %arg7 : f32
          kir.yield %25 : f32
        }
        kir.yield %24 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %19 = kir.binary add %arg1, %arg2 : f32
        kir.yield %19 : f32
      }
      %13 = kir.contract %7, %8 init %10 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16>, tensor<?xf32> -> tensor<?xf32>
      %14 = kir.broadcast %11 over(%5) dims [] : f32 -> tensor<?xf32>
      %15 = kir.binary sub %13, %14 : tensor<?xf32>
      %16 = kir.unary exp %15 : tensor<?xf32>
      %17 = kir.broadcast %12 over(%5) dims [] : f32 -> tensor<?xf32>
      %18 = kir.binary div %16, %17 : tensor<?xf32>
      kir.store %18, %probs[%arg0, %5] : tensor<?xf32>, !kir.view<f32, [M, C], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}


// -----

// COM: Must not fire: a source read in its own layout ([C, K], the class axis already first) whose
// COM: summarizer transposes the slice has no transpose to undo: the slice's pgpu.transpose stays (the
// COM: kir.transpose's own construction, lanes absent).
// CHECK-LABEL: pgpu.kernel @head_rows
// CHECK: pgpu.region_fold
// CHECK: %[[S:.*]] = pgpu.load %{{.*}} -> !pgpu.fragment<f16, [BLOCK_C, BLOCK_K]>
// CHECK-NEXT: %[[T:.*]] = pgpu.transpose %[[S]] [1, 0] : !pgpu.fragment<f16, [BLOCK_C, BLOCK_K]> -> !pgpu.fragment<f16, [BLOCK_K, BLOCK_C]>
// CHECK: pgpu.contract %{{.*}}, %[[T]], %{{.*}} reduce([1], [0])
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @head_rows(%x: !kir.view<f16, [M, K], in>, %w: !kir.view<f16, [C, K], in>, %b: !kir.view<f32, [C], in>, %probs: !kir.view<f32, [M, C], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %4 = kir.extent "C"
    %5 = kir.domain %c0 to %4
    %6 = kir.indices %5 : tensor<?xindex>
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    kir.parallel %2 {
    ^bb0(%arg0: index):
      %7 = kir.load %x[%arg0, %3] : !kir.view<f16, [M, K], in>[index, !kir.domain] -> tensor<?xf16>
      %8 = kir.load %w[%5, %3] : !kir.view<f16, [C, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %10 = kir.load %b[%5] : !kir.view<f32, [C], in>[!kir.domain] -> tensor<?xf32>
      %11 = kir.region_fold sources(%8, %10, %6 : tensor<?x?xf16>, tensor<?xf32>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%7 : tensor<?xf16>) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?xf32>, %arg3: tensor<?xindex>, %arg4: tensor<?xf16>):
        %19 = kir.transpose %arg1 [1, 0] : tensor<?x?xf16> -> tensor<?x?xf16>
        %20 = kir.contract %arg4, %19 init %arg2 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16>, tensor<?xf32> -> tensor<?xf32>
        %cst_1 = arith.constant 0xFF800000 : f32
        %21 = kir.reduce %20 axes [0] identity(%cst_1 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg5: f32, %arg6: f32):
          %22 = kir.binary max %arg5, %arg6 : f32
          kir.yield %22 : f32
        }
        kir.yield %21 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %19 = kir.binary max %arg1, %arg2 : f32
        kir.yield %19 : f32
      }
      %12 = kir.region_fold sources(%8, %10, %6 : tensor<?x?xf16>, tensor<?xf32>, tensor<?xindex>) axis 0 identity(%cst_0 : f32) operands(%7, %11 : tensor<?xf16>, f32) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?xf32>, %arg3: tensor<?xindex>, %arg4: tensor<?xf16>, %arg5: f32):
        %19 = kir.transpose %arg1 [1, 0] : tensor<?x?xf16> -> tensor<?x?xf16>
        %20 = kir.contract %arg4, %19 init %arg2 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16>, tensor<?xf32> -> tensor<?xf32>
        %21 = kir.broadcast_as %arg5 to %20 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %22 = kir.binary sub %20, %21 : tensor<?xf32>
        %23 = kir.unary exp %22 : tensor<?xf32>
        %cst_1 = arith.constant 0.000000e+00 : f32
        %24 = kir.reduce %23 axes [0] identity(%cst_1 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg6: f32, %arg7: f32):
          %25 = kir.binary add %arg6, %arg7 : f32
          kir.yield %25 : f32
        }
        kir.yield %24 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %19 = kir.binary add %arg1, %arg2 : f32
        kir.yield %19 : f32
      }
      %13 = kir.contract %7, %8 init %10 reduce([0], [1]) batch([], []) : tensor<?xf16>, tensor<?x?xf16>, tensor<?xf32> -> tensor<?xf32>
      %14 = kir.broadcast %11 over(%5) dims [] : f32 -> tensor<?xf32>
      %15 = kir.binary sub %13, %14 : tensor<?xf32>
      %16 = kir.unary exp %15 : tensor<?xf32>
      %17 = kir.broadcast %12 over(%5) dims [] : f32 -> tensor<?xf32>
      %18 = kir.binary div %16, %17 : tensor<?xf32>
      kir.store %18, %probs[%arg0, %5] : tensor<?xf32>, !kir.view<f32, [M, C], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

