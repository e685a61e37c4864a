// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: In a kernel that computes a product, a workset that uses what an earlier one wrote and computes a
// COM: product itself (chained GEMMs phased through a buffer: W = X X^T, then Y = cast(W) X, issue 41) is
// COM: a segment after a wait, not the whole product in the last program instance.
// CHECK-LABEL: pgpu.kernel @hand2
// CHECK: pgpu.execution_group {{.*}} segment 0
// CHECK: pgpu.buffer_store
// CHECK: pgpu.while
// CHECK: pgpu.atomic_load
// CHECK: pgpu.execution_group {{.*}} segment 1
// CHECK: pgpu.buffer_load
// CHECK: pgpu.last_program %{{.*}} : !pgpu.buffer<i32, [1], workspace> {
// CHECK-NEXT: pgpu.yield
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @hand2(%X: !kir.view<bf16, [B, M, N], in>, %Y: !kir.view<bf16, [B, M, N], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "M"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %2
    %6 = kir.buffer over(%3, %4, %4) first_write : !kir.buffer<tensor<?x?x?xf32>>
    kir.parallel %3 {
    ^bb0(%arg0: index):
      %7 = kir.load %X[%arg0, %4, %5] : !kir.view<bf16, [B, M, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %8 = kir.load %X[%arg0, %4, %5] : !kir.view<bf16, [B, M, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %9 = kir.contract %7, %8 reduce([1], [1]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
      kir.buffer_store %9, %6[%arg0, %4, %4] : tensor<?x?xf32>, !kir.buffer<tensor<?x?x?xf32>>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    // expected-remark @+1 {{kir-to-pgpu: this workset uses what an earlier workset writes (or writes what it uses): it is a segment after them}}
    kir.parallel %3 {
    ^bb0(%arg0: index):
      %7 = kir.buffer_load %6[%arg0, %4, %4] : !kir.buffer<tensor<?x?x?xf32>>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %8 = kir.cast %7 : tensor<?x?xf32> to tensor<?x?xbf16>
      %9 = kir.load %X[%arg0, %4, %5] : !kir.view<bf16, [B, M, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %10 = kir.contract %8, %9 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
      %11 = kir.cast %10 : tensor<?x?xf32> to tensor<?x?xbf16>
      kir.store %11, %Y[%arg0, %4, %5] : tensor<?x?xbf16>, !kir.view<bf16, [B, M, N], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not phase a finalization that is no product of a kernel-level buffer in a kernel that computes one (a grouped
// COM: GEMM's zero tail): the product's group keeps pgpu-form-tiles' sole-group forms, the copy runs in
// COM: the last program.
// CHECK-LABEL: pgpu.kernel @product_then_copy
// CHECK-NOT: pgpu.while
// CHECK: pgpu.last_program
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @product_then_copy(%x: !kir.view<f32, [M, K], in>, %w: !kir.view<f32, [K, N], in>, %y: !kir.view<f32, [M, N], inout>, %z: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %k = kir.extent "K"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dk = kir.domain %c0 to %k
    %dn = kir.domain %c0 to %n
    %a = kir.load %x[%dm, %dk] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %bb = kir.load %w[%dk, %dn] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %p = kir.contract %a, %bb reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %p, %y[%dm, %dn] : tensor<?x?xf32>, !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain]
    // expected-remark @+1 {{it runs whole in the last program instance (not phased: the kernel computes a product, and no finalization is a product of a kernel-level buffer}}
    kir.parallel %dm {
    ^bb0(%i: index):
      %v = kir.load %y[%i, %dn] : !kir.view<f32, [M, N], inout>[index, !kir.domain] -> tensor<?xf32>
      kir.store %v, %z[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
