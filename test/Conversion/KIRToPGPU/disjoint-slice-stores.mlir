// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: Two worksets store one view at channel slices [0, F) and [2F, C) with F = C // 8 (a temporal
// COM: shift's slices, corpus 344): F - 2F = -F is at most 0 because F, a floor quotient of an extent by a
// COM: positive constant, is non-negative, so the slices are disjoint and the writes commute. Both are
// COM: segments of one launch that run in parallel: no wait (pgpu.while on an acquire load), no last
// COM: program.
// CHECK-LABEL: pgpu.kernel @slices
// CHECK: pgpu.execution_group %{{.*}} segment 0
// CHECK: pgpu.store
// CHECK-NOT: pgpu.while
// CHECK: pgpu.execution_group %{{.*}} segment 1
// CHECK: pgpu.store
// CHECK-NOT: pgpu.last_program
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @slices(%x: !kir.view<f32, [M, C], in>, %y: !kir.view<f32, [M, C], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "C"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %c8 = arith.constant 8 : index
    %c2 = arith.constant 2 : index
    %cst = arith.constant 2.000000e+00 : f32
    %4 = kir.binary div %1, %c8 : index
    %5 = kir.subregion %3[%c0 : %4]
    %6 = kir.load %x[%2, %5] : !kir.view<f32, [M, C], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %7 = kir.subregion %3[%c0 : %4]
    kir.store %6, %y[%2, %7] : tensor<?x?xf32>, !kir.view<f32, [M, C], out>[!kir.domain, !kir.domain]
    %8 = kir.binary mul %c2, %4 : index
    %9 = kir.subregion %3[%8 : %1]
    %10 = kir.load %x[%2, %9] : !kir.view<f32, [M, C], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %11 = kir.broadcast %cst over(%2, %9) dims [] : f32 -> tensor<?x?xf32>
    %12 = kir.binary mul %10, %11 : tensor<?x?xf32>
    %13 = kir.binary mul %c2, %4 : index
    %14 = kir.subregion %3[%13 : %1]
    kir.store %12, %y[%2, %14] : tensor<?x?xf32>, !kir.view<f32, [M, C], out>[!kir.domain, !kir.domain]
    kir.return
  }
}


// -----

// COM: Must not fire: [0, F) and [F // 2, C) overlap on [F // 2, F) (F - F // 2 is not provably at most
// COM: 0): the second workset's instances wait for every instance of the first.
// CHECK-LABEL: pgpu.kernel @overlapping_slices
// CHECK: pgpu.execution_group %{{.*}} segment 0
// CHECK: pgpu.while {
// CHECK: pgpu.atomic_load %{{.*}} order acquire
// CHECK: pgpu.execution_group %{{.*}} segment 1
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @overlapping_slices(%x: !kir.view<f32, [M, C], in>, %y: !kir.view<f32, [M, C], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "C"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %c8 = arith.constant 8 : index
    %c2 = arith.constant 2 : index
    %cst = arith.constant 2.000000e+00 : f32
    %4 = kir.binary div %1, %c8 : index
    %5 = kir.subregion %3[%c0 : %4]
    %6 = kir.load %x[%2, %5] : !kir.view<f32, [M, C], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %7 = kir.subregion %3[%c0 : %4]
    kir.store %6, %y[%2, %7] : tensor<?x?xf32>, !kir.view<f32, [M, C], out>[!kir.domain, !kir.domain]
    %8 = kir.binary div %4, %c2 : index
    %9 = kir.subregion %3[%8 : %1]
    %10 = kir.load %x[%2, %9] : !kir.view<f32, [M, C], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %11 = kir.broadcast %cst over(%2, %9) dims [] : f32 -> tensor<?x?xf32>
    %12 = kir.binary mul %10, %11 : tensor<?x?xf32>
    %13 = kir.binary div %4, %c2 : index
    %14 = kir.subregion %3[%13 : %1]
    // expected-remark @+1 {{kir-to-pgpu: this workset uses what an earlier workset writes (or writes what it uses): it is a segment after them}}
    kir.store %12, %y[%2, %14] : tensor<?x?xf32>, !kir.view<f32, [M, C], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

