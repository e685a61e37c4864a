// RUN: tessel-opt %s -split-input-file -kir-online-folds -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: A maximum joined with a per-head value (gpt-oss's attention sinks: m = maximum(max(s), sink), the
// COM: sink's exp(sink - m) added to the denominator before the P.V product is written). Before: the
// COM: exponentials subtracted the join, not the reduction, so nothing was folded and the member ran element
// COM: by element. After: the exact two-pass folds; the second captures the final maximum
// COM: maximum(fold1, sink), and the denominator's scalar ops written before the product follow the folds.
// CHECK-LABEL: kir.kernel @sink_attention
// CHECK: kir.parallel
// CHECK: %[[SINK:.*]] = kir.load %sinks
// CHECK: %[[M1:.*]] = kir.region_fold
// CHECK: %[[M:.*]] = kir.binary max %[[M1]], %[[SINK]] : f32
// CHECK: %[[F:.*]]:2 = kir.region_fold {{.*}} operands({{.*}}, %[[M]] : {{.*}}, f32) -> ({{.*}}) summarize {
// CHECK: kir.unary exp
// CHECK: kir.contract
// CHECK: kir.cmp eq %[[M]], %cst
// CHECK: kir.binary sub %[[SINK]], %[[M]] : f32
// CHECK: kir.unary exp
// CHECK: kir.store
// CHECK-NOT: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @sink_attention(%q: !kir.view<f32, [H, S, D], in>, %k: !kir.view<f32, [H, S, D], in>, %v: !kir.view<f32, [H, S, D], in>, %sinks: !kir.view<f32, [H], in>, %out: !kir.view<f32, [H, S, D], out>) {
    %1 = kir.extent "H"
    %2 = kir.extent "S"
    %3 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %3
    %8 = kir.domain %c0 to %1
    %9 = kir.indices %5 : tensor<?xindex>
    %cst = arith.constant 0xFF800000 : f32
    %10 = kir.broadcast %cst over(%5) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became two region folds}}
    kir.parallel %8, %5 {
    ^bb0(%arg1: index, %arg2: index):
      %15 = kir.load %k[%arg1, %5, %6] : !kir.view<f32, [H, S, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %16 = kir.load %q[%arg1, %arg2, %6] : !kir.view<f32, [H, S, D], in>[index, index, !kir.domain] -> tensor<?xf32>
      %17 = kir.contract %15, %16 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %20 = kir.broadcast %arg2 over(%5) dims [] : index -> tensor<?xindex>
      %21 = kir.cmp le %9, %20 : tensor<?xindex>
      %22 = kir.select %21, %17, %10 : tensor<?xi1>, tensor<?xf32>
      %23 = kir.load %sinks[%arg1] : !kir.view<f32, [H], in>[index] -> f32
      %24 = kir.reduce %22 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary max %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %25 = kir.binary max %24, %23 : f32
      %26 = kir.broadcast %25 over(%5) dims [] : f32 -> tensor<?xf32>
      %27 = kir.binary sub %22, %26 : tensor<?xf32>
      %28 = kir.unary exp %27 : tensor<?xf32>
      %29 = kir.reduce %28 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary add %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %30 = kir.binary sub %23, %25 : f32
      %31 = kir.unary exp %30 : f32
      %32 = kir.binary add %29, %31 : f32
      %35 = kir.load %v[%arg1, %5, %6] : !kir.view<f32, [H, S, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %36 = kir.contract %28, %35 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %37 = kir.broadcast %32 over(%6) dims [] : f32 -> tensor<?xf32>
      %38 = kir.binary div %36, %37 : tensor<?xf32>
      kir.store %38, %out[%arg1, %arg2, %6] : tensor<?xf32>, !kir.view<f32, [H, S, D], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the value joined with the maximum is a sum over the same axis (computed from the
// COM: row itself, so it cannot be read where the first fold ends).
// CHECK-LABEL: kir.kernel @joined_with_row_sum
// CHECK-NOT: kir.region_fold
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @joined_with_row_sum(%k: !kir.view<f32, [S, D], in>, %q: !kir.view<f32, [N, D], in>, %v: !kir.view<f32, [S, D], in>, %out: !kir.view<f32, [N, D], out>) {
    %2 = kir.extent "S"
    %3 = kir.extent "D"
    %4 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %3
    %7 = kir.domain %c0 to %4
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    kir.parallel %7 {
    ^bb0(%arg2: index):
      %15 = kir.load %k[%5, %6] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %16 = kir.load %q[%arg2, %6] : !kir.view<f32, [N, D], in>[index, !kir.domain] -> tensor<?xf32>
      %17 = kir.contract %15, %16 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: a value over the axis computed from a reduction is used by}}
      %24 = kir.reduce %17 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary max %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %23 = kir.reduce %17 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary add %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %25 = kir.binary max %24, %23 : f32
      %26 = kir.broadcast %25 over(%5) dims [] : f32 -> tensor<?xf32>
      %27 = kir.binary sub %17, %26 : tensor<?xf32>
      %28 = kir.unary exp %27 : tensor<?xf32>
      %29 = kir.reduce %28 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary add %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %35 = kir.load %v[%5, %6] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %36 = kir.contract %28, %35 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %37 = kir.broadcast %29 over(%6) dims [] : f32 -> tensor<?xf32>
      %38 = kir.binary div %36, %37 : tensor<?xf32>
      kir.store %38, %out[%arg2, %6] : tensor<?xf32>, !kir.view<f32, [N, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: The same joined maximum under relaxed_normalization: one online fold (summary ok, m_f, P.V, sum)
// COM: relative to the fold's own maximum; after it the final maximum maximum(row max, sink) and each
// COM: P-scaled component rescaled to it by where(ok, exp(m_f - m), 0). Before: the join kept the exact
// COM: two-pass folds under either numerics (the scores computed twice).
// CHECK-LABEL: kir.kernel @sink_attention_relaxed
// CHECK: %[[SINK:.*]] = kir.load %sinks
// CHECK: %[[F:.*]]:4 = kir.region_fold
// CHECK-NOT: kir.region_fold
// CHECK: %[[ROW:.*]] = kir.select %[[F]]#0, %[[F]]#1, %{{.*}} : i1, f32
// CHECK: %[[M:.*]] = kir.binary max %[[ROW]], %[[SINK]] : f32
// CHECK: %[[D:.*]] = kir.binary sub %[[F]]#1, %[[M]] : f32
// CHECK: %[[E:.*]] = kir.unary exp %[[D]] : f32
// CHECK: %[[W:.*]] = kir.select %[[F]]#0, %[[E]], %{{.*}} : i1, f32
// CHECK: kir.binary mul %[[F]]#2, %{{.*}} : tensor<?xf32>
// CHECK: kir.binary mul %[[F]]#3, %[[W]] : f32
// CHECK: kir.binary sub %[[SINK]], %[[M]] : f32
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @sink_attention_relaxed(%q: !kir.view<f32, [H, S, D], in>, %k: !kir.view<f32, [H, S, D], in>, %v: !kir.view<f32, [H, S, D], in>, %sinks: !kir.view<f32, [H], in>, %out: !kir.view<f32, [H, S, D], out>) {
    %1 = kir.extent "H"
    %2 = kir.extent "S"
    %3 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %3
    %8 = kir.domain %c0 to %1
    %9 = kir.indices %5 : tensor<?xindex>
    %cst = arith.constant 0xFF800000 : f32
    %10 = kir.broadcast %cst over(%5) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became one region fold (online summary}}
    kir.parallel %8, %5 {
    ^bb0(%arg1: index, %arg2: index):
      %15 = kir.load %k[%arg1, %5, %6] : !kir.view<f32, [H, S, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %16 = kir.load %q[%arg1, %arg2, %6] : !kir.view<f32, [H, S, D], in>[index, index, !kir.domain] -> tensor<?xf32>
      %17 = kir.contract %15, %16 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %20 = kir.broadcast %arg2 over(%5) dims [] : index -> tensor<?xindex>
      %21 = kir.cmp le %9, %20 : tensor<?xindex>
      %22 = kir.select %21, %17, %10 : tensor<?xi1>, tensor<?xf32>
      %23 = kir.load %sinks[%arg1] : !kir.view<f32, [H], in>[index] -> f32
      %24 = kir.reduce %22 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary max %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %25 = kir.binary max %24, %23 : f32
      %26 = kir.broadcast %25 over(%5) dims [] : f32 -> tensor<?xf32>
      %27 = kir.binary sub %22, %26 : tensor<?xf32>
      %28 = kir.unary exp %27 : tensor<?xf32>
      %29 = kir.reduce %28 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary add %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %30 = kir.binary sub %23, %25 : f32
      %31 = kir.unary exp %30 : f32
      %32 = kir.binary add %29, %31 : f32
      %35 = kir.load %v[%arg1, %5, %6] : !kir.view<f32, [H, S, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %36 = kir.contract %28, %35 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %37 = kir.broadcast %32 over(%6) dims [] : f32 -> tensor<?xf32>
      %38 = kir.binary div %36, %37 : tensor<?xf32>
      kir.store %38, %out[%arg1, %arg2, %6] : tensor<?xf32>, !kir.view<f32, [H, S, D], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

