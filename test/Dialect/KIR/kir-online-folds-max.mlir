// RUN: tessel-opt %s -split-input-file -kir-online-folds -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: A row maximum alone of a matrix-vector product (max over v of x[n, :] . W[v, :]): before, it
// COM: stayed a reduction over a contraction computed per member (no reduction of exp(x - max) to fold
// COM: with it), constructed element by element. After: pass 1 of the exact two-pass form alone, one
// COM: region fold over the W rows with the maximum as its summary (exact in any order, under either
// COM: numerics), which kir-to-pgpu constructs on fragments (tile products of row blocks).
// CHECK-LABEL: kir.kernel @row_max
// CHECK: %[[IDX:.*]] = kir.indices
// CHECK: kir.parallel
// CHECK: %[[W:.*]] = kir.load %w
// CHECK: %[[X:.*]] = kir.load %x
// CHECK: %[[M:.*]] = kir.region_fold sources(%[[W]], %[[IDX]] : tensor<?x?xf16>, tensor<?xindex>) axis 0 identity(%{{.*}} : f32) operands(%[[X]] : tensor<?xf16>) -> (f32) summarize {
// CHECK: kir.contract
// CHECK: kir.binary max
// CHECK: } combine {
// CHECK: kir.binary max
// CHECK: kir.store %[[M]], %out
// CHECK-NOT: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @row_max(%x: !kir.view<f16, [N, K], in>, %w: !kir.view<f16, [V, K], in>, %out: !kir.view<f32, [N], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "K"
    %2 = kir.extent "V"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %0
    %cst = arith.constant 0xFF800000 : f32
    // expected-remark @below {{kir-online-folds: a maximum over one axis of a row computed by a contraction became a region fold (the maximum alone, exact in any order, seed 002 §1)}}
    kir.parallel %5 {
    ^bb0(%arg0: index):
      %6 = kir.load %w[%3, %4] : !kir.view<f16, [V, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %7 = kir.load %x[%arg0, %4] : !kir.view<f16, [N, K], in>[index, !kir.domain] -> tensor<?xf16>
      %8 = kir.contract %6, %7 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %9 = kir.reduce %8 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg1: f32, %arg2: f32):
        %10 = kir.binary max %arg1, %arg2 : f32
        kir.yield %10 : f32
      }
      kir.store %9, %out[%arg0] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a row maximum read from memory keeps its row path (no contraction computes it).
// CHECK-LABEL: kir.kernel @row_max_mem
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @row_max_mem(%x: !kir.view<f32, [N, K], in>, %out: !kir.view<f32, [N], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "K"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %1
    %3 = kir.domain %c0 to %0
    %cst = arith.constant 0xFF800000 : f32
    kir.parallel %3 {
    ^bb0(%arg0: index):
      %4 = kir.load %x[%arg0, %2] : !kir.view<f32, [N, K], in>[index, !kir.domain] -> tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: no reduction of exp(x - max) over the axis}}
      %5 = kir.reduce %4 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg1: f32, %arg2: f32):
        %6 = kir.binary max %arg1, %arg2 : f32
        kir.yield %6 : f32
      }
      kir.store %5, %out[%arg0] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}
