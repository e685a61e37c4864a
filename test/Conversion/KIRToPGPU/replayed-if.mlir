// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// A top-level runtime kir.if with scalar results whose branches only compute and read (the DSL's
// `v = x[0, N - 1] if s > 0.5 else x[M - 1, 0]` at kernel level) is replayed in each workset that uses
// it, as a pgpu.if inside that workset. Found by the DSL fuzzer: it was refused as "neither a
// launch-time fact nor a pure value read before the worksets".
// CHECK-LABEL: pgpu.kernel @pick
// CHECK: pgpu.execution_group
// CHECK: pgpu.cmp gt %s
// CHECK: [[A:%[0-9]+]] = pgpu.if
// CHECK: pgpu.load %x
// CHECK: pgpu.binary mul %{{[0-9]+}}, [[A]]
// CHECK: pgpu.execution_group
// CHECK: pgpu.cmp gt %s
// CHECK: [[B:%[0-9]+]] = pgpu.if
// CHECK: pgpu.load %x
// CHECK: pgpu.binary add %{{[0-9]+}}, [[B]]
kir.kernel @pick(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>, %z: !kir.view<f32, [N], out>, %s: f32) {
  %0 = kir.extent "M"
  %1 = kir.extent "N"
  %2 = arith.constant 0 : index
  %3 = kir.domain %2 to %0
  %4 = kir.domain %2 to %1
  %5 = arith.constant 0.5 : f32
  %7 = arith.constant 1 : index
  %6 = kir.cmp gt %s, %5 : f32
  %12 = kir.if %6 -> f32 {
    %8 = kir.binary sub %1, %7 : index
    %9 = kir.load %x[%2, %8] : !kir.view<f32, [M, N], in>[index, index] -> f32
    kir.yield %9 : f32
  } else {
    %10 = kir.binary sub %0, %7 : index
    %11 = kir.load %x[%10, %2] : !kir.view<f32, [M, N], in>[index, index] -> f32
    kir.yield %11 : f32
  }
  %13 = kir.load %x[%3, %4] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  %14 = kir.broadcast %12 over(%3, %4) dims [] : f32 -> tensor<?x?xf32>
  %15 = kir.binary mul %13, %14 : tensor<?x?xf32>
  kir.store %15, %y[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
  %16 = kir.load %x[%2, %4] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
  %17 = kir.broadcast %12 over(%4) dims [] : f32 -> tensor<?xf32>
  %18 = kir.binary add %16, %17 : tensor<?xf32>
  kir.store %18, %z[%4] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}

// -----

// A top-level kir.if that stores is still refused: effects belong in a workset.
kir.kernel @store_in_if(%x: !kir.view<f32, [N], in>, %z: !kir.view<f32, [N], out>, %s: f32) {
  %0 = kir.extent "N"
  %1 = arith.constant 0 : index
  %2 = kir.domain %1 to %0
  %3 = arith.constant 0.5 : f32
  %4 = kir.cmp gt %s, %3 : f32
  // expected-error @below {{top-level 'kir.if' is neither a launch-time fact nor a pure value read before the worksets}}
  kir.if %4 {
    %5 = kir.load %x[%2] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    kir.store %5, %z[%2] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.yield
  }
  kir.return
}
