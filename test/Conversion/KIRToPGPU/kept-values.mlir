// RUN: tessel-opt %s -split-input-file --kir-to-pgpu --verify-diagnostics | FileCheck %s
// COM: seed 002 §3.4: a structured value (here a contraction) read several times is computed once per
// COM: element and kept, never replayed per use; consecutive top-level stores over the same coordinates
// COM: are one workset, so what they share is computed once too. Stores at other coordinates are not
// COM: joined (each replays the contraction).

// CHECK-LABEL: pgpu.kernel @kept
// CHECK: %[[ACC:.*]] = pgpu.range_reduce
// CHECK-NOT: pgpu.range_reduce
// CHECK: %[[SQ:.*]] = pgpu.binary mul %[[ACC]], %[[ACC]] : f32
// CHECK: pgpu.binary add %[[SQ]], %[[ACC]] : f32
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @kept(%a: !kir.view<f32, [M, K], in>, %b: !kir.view<f32, [K, N], in>, %c: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %1
    %6 = kir.load %a[%3, %5] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %7 = kir.load %b[%5, %4] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    // expected-remark @+1 {{computed once per element and kept for}}
    %8 = kir.contract %6, %7 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    %9 = kir.binary mul %8, %8 : tensor<?x?xf32>
    %10 = kir.binary add %9, %8 : tensor<?x?xf32>
    kir.store %10, %c[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// CHECK-LABEL: pgpu.kernel @two_stores
// CHECK: pgpu.execution_group
// CHECK: %[[ACC:.*]] = pgpu.range_reduce
// CHECK: pgpu.store %[[ACC]], %{{.*}}
// CHECK-NOT: pgpu.range_reduce
// CHECK: %[[TWICE:.*]] = pgpu.binary mul %[[ACC]]
// CHECK: pgpu.store %[[TWICE]]
// CHECK-NOT: pgpu.execution_group
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @two_stores(%a: !kir.view<f32, [M, K], in>, %b: !kir.view<f32, [K, N], in>, %c: !kir.view<f32, [M, N], out>, %d: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %1
    %cst = arith.constant 2.000000e+00 : f32
    %6 = kir.broadcast %cst over(%3, %4) dims [] : f32 -> tensor<?x?xf32>
    %7 = kir.load %a[%3, %5] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %8 = kir.load %b[%5, %4] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    // expected-remark @+1 {{computed once per element and kept for}}
    %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %9, %c[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    %10 = kir.binary mul %9, %6 : tensor<?x?xf32>
    // expected-remark @+1 {{joins the workset of the store before it}}
    kir.store %10, %d[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// CHECK-LABEL: pgpu.kernel @transposed
// CHECK: pgpu.execution_group {{.*}} segment 0
// CHECK: pgpu.range_reduce
// CHECK: pgpu.execution_group {{.*}} segment 1
// CHECK: pgpu.range_reduce
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @transposed(%a: !kir.view<f32, [M, K], in>, %b: !kir.view<f32, [K, N], in>, %c: !kir.view<f32, [M, N], out>, %d: !kir.view<f32, [N, M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %1
    %6 = kir.load %a[%3, %5] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %7 = kir.load %b[%5, %4] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %8 = kir.contract %6, %7 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %8, %c[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    %9 = kir.transpose %8 [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %9, %d[%4, %3] : tensor<?x?xf32>, !kir.view<f32, [N, M], out>[!kir.domain, !kir.domain]
    kir.return
  }
}
