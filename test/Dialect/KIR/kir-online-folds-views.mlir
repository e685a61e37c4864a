// RUN: tessel-opt %s -split-input-file -kir-online-folds -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: A classifier head softmax(x[n, :] @ W + b) with W [K, C]: the class axis is W's second. Before,
// COM: the maximum stayed a two-pass reduction ("sources over the axis at different axis positions") and
// COM: the row was constructed element by element. After: W is sliced through a kir.transpose with the
// COM: class axis first (one transpose, shared by both folds, after the read), each summarizer
// COM: transposes its slice back before the contraction; the bias's identity broadcast is gone (b read
// COM: as a source over the classes, the contraction's init), and the store epilogue reads W as before.
// CHECK-LABEL: kir.kernel @head
// CHECK: kir.parallel
// CHECK: %[[W:.*]] = kir.load %w[%{{.*}}, %{{.*}}] {{.*}} -> tensor<?x?xf16>
// CHECK-NEXT: %[[WT:.*]] = kir.transpose %[[W]] [1, 0] : tensor<?x?xf16> -> tensor<?x?xf16>
// CHECK: %[[B:.*]] = kir.load %b
// CHECK-NOT: kir.broadcast %[[B]]
// CHECK: %[[M:.*]] = kir.region_fold sources(%[[WT]], %[[B]], %{{.*}} : tensor<?x?xf16>, tensor<?xf32>, tensor<?xindex>) axis 0
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<?x?xf16>, %[[SB:.*]]: tensor<?xf32>, %{{.*}}: tensor<?xindex>, %[[SX:.*]]: tensor<?xf16>):
// CHECK-NEXT: %[[BACK:.*]] = kir.transpose %[[S]] [1, 0]
// CHECK-NEXT: kir.contract %[[SX]], %[[BACK]] init %[[SB]] reduce([0], [0])
// CHECK: %[[SUM:.*]] = kir.region_fold sources(%[[WT]], %[[B]], %{{.*}}) axis 0 {{.*}} operands(%{{.*}}, %[[M]] : tensor<?xf16>, f32)
// CHECK: kir.transpose %{{.*}} [1, 0]
// CHECK: kir.contract %{{.*}}, %[[W]] init %[[B]] reduce([0], [0])
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @head(%x: !kir.view<f16, [M, K], in>, %w: !kir.view<f16, [K, C], in>, %b: !kir.view<f32, [C], in>, %probs: !kir.view<f32, [M, C], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %4 = kir.extent "C"
    %5 = kir.domain %c0 to %4
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 1 reduction(s) over one axis became two region folds (exact two-pass, source numerics}}
    kir.parallel %2 {
    ^bb0(%arg0: index):
      %6 = kir.load %x[%arg0, %3] : !kir.view<f16, [M, K], in>[index, !kir.domain] -> tensor<?xf16>
      %7 = kir.load %w[%3, %5] : !kir.view<f16, [K, C], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %b[%5] : !kir.view<f32, [C], in>[!kir.domain] -> tensor<?xf32>
      %9 = kir.broadcast %8 over(%5) dims [0] : tensor<?xf32> -> tensor<?xf32>
      %10 = kir.contract %6, %7 init %9 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16>, tensor<?xf32> -> tensor<?xf32>
      %11 = kir.reduce %10 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg1: f32, %arg2: f32):
        %18 = kir.binary max %arg1, %arg2 : f32
        kir.yield %18 : f32
      }
      %12 = kir.broadcast %11 over(%5) dims [] : f32 -> tensor<?xf32>
      %13 = kir.binary sub %10, %12 : tensor<?xf32>
      %14 = kir.unary exp %13 : tensor<?xf32>
      %15 = kir.reduce %14 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg1: f32, %arg2: f32):
        %18 = kir.binary add %arg1, %arg2 : f32
        kir.yield %18 : f32
      }
      %16 = kir.broadcast %15 over(%5) dims [] : f32 -> tensor<?xf32>
      %17 = kir.binary div %14, %16 : tensor<?xf32>
      kir.store %17, %probs[%arg0, %5] : tensor<?xf32>, !kir.view<f32, [M, C], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a read over the axis twice (the diagonal of a square weight, w[classes, classes])
// COM: has no single axis a view could put first; the maximum stays a two-pass reduction.
// CHECK-LABEL: kir.kernel @diagonal
// CHECK-NOT: kir.region_fold
// CHECK-NOT: kir.transpose
// CHECK: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @diagonal(%x: !kir.view<f16, [M, C], in>, %w: !kir.view<f16, [C, C], in>, %out: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "C"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %cst = arith.constant 0xFF800000 : f32
    kir.parallel %2 {
    ^bb0(%arg0: index):
      %4 = kir.load %x[%arg0, %3] : !kir.view<f16, [M, C], in>[index, !kir.domain] -> tensor<?xf16>
      %5 = kir.load %w[%3, %3] : !kir.view<f16, [C, C], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %6 = kir.contract %4, %5 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: a read over the axis more than once}}
      %7 = kir.reduce %6 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg1: f32, %arg2: f32):
        %8 = kir.binary max %arg1, %arg2 : f32
        kir.yield %8 : f32
      }
      kir.store %7, %out[%arg0] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}
