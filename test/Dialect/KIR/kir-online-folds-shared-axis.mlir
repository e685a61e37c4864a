// RUN: tessel-opt %s -split-input-file -kir-online-folds -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: Two softmaxes over one key axis in one member (differential attention, corpus 223: o1 - lam * o2,
// COM: both reading the same V). Before: the first maximum took every op over the axis for its own, so the
// COM: second softmax's exponentials (computed from the second maximum) refused it, and the member ran
// COM: element by element. After: each maximum folds its own computation (what its row reads, what reads
// COM: it); the V read is shared: each pair of exact two-pass folds takes it as a source.
// CHECK-LABEL: kir.kernel @two_softmaxes
// CHECK: kir.parallel
// CHECK: %[[V:.*]] = kir.load %v
// CHECK: %[[M1:.*]] = kir.region_fold sources(%{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?xindex>)
// CHECK: kir.region_fold sources(%{{.*}}, %[[V]], %{{.*}} : {{.*}}) {{.*}} operands(%{{.*}}, %[[M1]] : {{.*}})
// CHECK: %[[M2:.*]] = kir.region_fold sources(%{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?xindex>)
// CHECK: %[[F2:.*]]:2 = kir.region_fold sources(%[[V]], %{{.*}}, %{{.*}} : {{.*}}) {{.*}} operands(%{{.*}}, %[[M2]] : {{.*}})
// CHECK: kir.binary div %[[F2]]#0
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @two_softmaxes(%q1: !kir.view<f32, [S, D], in>, %q2: !kir.view<f32, [S, D], in>, %k1: !kir.view<f32, [S, D], in>, %k2: !kir.view<f32, [S, D], in>, %v: !kir.view<f32, [S, D], in>, %o: !kir.view<f32, [S, D], out>, %lam: f32) {
    %2 = kir.extent "S"
    %3 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %3
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %8 = kir.broadcast %lam over(%5) dims [] : f32 -> tensor<?xf32>
    // COM: (one remark per maximum, the same text at the loop: one expectation matches both)
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became two region folds}}
    kir.parallel %4 {
    ^bb0(%arg2: index):
      %11 = kir.load %k1[%4, %5] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %12 = kir.load %q1[%arg2, %5] : !kir.view<f32, [S, D], in>[index, !kir.domain] -> tensor<?xf32>
      %13 = kir.contract %11, %12 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %16 = kir.reduce %13 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %44 = kir.binary max %arg3, %arg4 : f32
        kir.yield %44 : f32
      }
      %17 = kir.broadcast %16 over(%4) dims [] : f32 -> tensor<?xf32>
      %18 = kir.binary sub %13, %17 : tensor<?xf32>
      %19 = kir.unary exp %18 : tensor<?xf32>
      %21 = kir.load %v[%4, %5] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %22 = kir.contract %19, %21 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %23 = kir.reduce %19 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %44 = kir.binary add %arg3, %arg4 : f32
        kir.yield %44 : f32
      }
      %24 = kir.broadcast %23 over(%5) dims [] : f32 -> tensor<?xf32>
      %25 = kir.binary div %22, %24 : tensor<?xf32>
      %26 = kir.load %k2[%4, %5] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %27 = kir.load %q2[%arg2, %5] : !kir.view<f32, [S, D], in>[index, !kir.domain] -> tensor<?xf32>
      %28 = kir.contract %26, %27 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %31 = kir.reduce %28 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %44 = kir.binary max %arg3, %arg4 : f32
        kir.yield %44 : f32
      }
      %32 = kir.broadcast %31 over(%4) dims [] : f32 -> tensor<?xf32>
      %33 = kir.binary sub %28, %32 : tensor<?xf32>
      %34 = kir.unary exp %33 : tensor<?xf32>
      %37 = kir.contract %34, %21 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %38 = kir.reduce %34 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %44 = kir.binary add %arg3, %arg4 : f32
        kir.yield %44 : f32
      }
      %39 = kir.broadcast %38 over(%5) dims [] : f32 -> tensor<?xf32>
      %40 = kir.binary div %37, %39 : tensor<?xf32>
      %41 = kir.binary mul %8, %40 : tensor<?xf32>
      %42 = kir.binary sub %25, %41 : tensor<?xf32>
      kir.store %42, %o[%arg2, %5] : tensor<?xf32>, !kir.view<f32, [S, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the second softmax's row is computed from the first's (s2 = 2 * s1): a value of the
// COM: first maximum's computation feeds the second maximum, so neither is folded on its own.
// CHECK-LABEL: kir.kernel @second_row_from_the_first
// CHECK-NOT: kir.region_fold
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @second_row_from_the_first(%q1: !kir.view<f32, [S, D], in>, %k1: !kir.view<f32, [S, D], in>, %v: !kir.view<f32, [S, D], in>, %o: !kir.view<f32, [S, D], out>) {
    %2 = kir.extent "S"
    %3 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %3
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %two = arith.constant 2.0 : f32
    %tb = kir.broadcast %two over(%4) dims [] : f32 -> tensor<?xf32>
    kir.parallel %4 {
    ^bb0(%arg2: index):
      %11 = kir.load %k1[%4, %5] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %12 = kir.load %q1[%arg2, %5] : !kir.view<f32, [S, D], in>[index, !kir.domain] -> tensor<?xf32>
      %13 = kir.contract %11, %12 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: a value over the axis computed from a reduction is used by}}
      %16 = kir.reduce %13 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %44 = kir.binary max %arg3, %arg4 : f32
        kir.yield %44 : f32
      }
      %17 = kir.broadcast %16 over(%4) dims [] : f32 -> tensor<?xf32>
      %18 = kir.binary sub %13, %17 : tensor<?xf32>
      %19 = kir.unary exp %18 : tensor<?xf32>
      %21 = kir.load %v[%4, %5] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %22 = kir.contract %19, %21 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %23 = kir.reduce %19 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %44 = kir.binary add %arg3, %arg4 : f32
        kir.yield %44 : f32
      }
      %24 = kir.broadcast %23 over(%5) dims [] : f32 -> tensor<?xf32>
      %25 = kir.binary div %22, %24 : tensor<?xf32>
      %28 = kir.binary mul %13, %tb : tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction}}
      %31 = kir.reduce %28 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %44 = kir.binary max %arg3, %arg4 : f32
        kir.yield %44 : f32
      }
      %32 = kir.broadcast %31 over(%4) dims [] : f32 -> tensor<?xf32>
      %33 = kir.binary sub %28, %32 : tensor<?xf32>
      %34 = kir.unary exp %33 : tensor<?xf32>
      %37 = kir.contract %34, %21 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %38 = kir.reduce %34 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %44 = kir.binary add %arg3, %arg4 : f32
        kir.yield %44 : f32
      }
      %39 = kir.broadcast %38 over(%5) dims [] : f32 -> tensor<?xf32>
      %40 = kir.binary div %37, %39 : tensor<?xf32>
      %42 = kir.binary sub %25, %40 : tensor<?xf32>
      kir.store %42, %o[%arg2, %5] : tensor<?xf32>, !kir.view<f32, [S, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
