// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// A member domain bounded by an integer kernel scalar cast to index: the cast is a launch-time fact
// (a top-level pgpu.cast, a LaunchExpr), so the segment's extent is computed from it. Before, the cast
// was replayed per workset and the member domain had no size (construction crashed).
// CHECK-LABEL: pgpu.kernel @scalar_bound
// CHECK: [[G:%[0-9]+]] = pgpu.cast %G : i32 to index
// CHECK: pgpu.execution_group
kir.kernel @scalar_bound(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], inout>, %G: i32) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 2.000000e+00 : f32
  %0 = kir.cast %G : i32 to index
  %1 = kir.domain %c0 to %0
  kir.parallel %1 {
  ^bb0(%g: index):
    %2 = kir.load %x[%g] : !kir.view<f32, [N], in>[index] -> f32
    %3 = kir.binary mul %2, %cst : f32
    kir.store %3, %y[%g] : f32, !kir.view<f32, [N], inout>[index]
    kir.yield
  }
  kir.return
}

// -----

// Must not fire: a bound read from memory is no launch-time fact; the member domain cannot size the
// launch, a located error at the loop (not a crash).
kir.kernel @loaded_bound(%x: !kir.view<f32, [N], in>, %n: !kir.view<i32, [one], in>, %y: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 2.000000e+00 : f32
  %v = kir.load %n[%c0] : !kir.view<i32, [one], in>[index] -> i32
  %0 = kir.cast %v : i32 to index
  %1 = kir.domain %c0 to %0
  // expected-error @+1 {{this T.parallel's domain is bounded by a value read from memory}}
  kir.parallel %1 {
  ^bb0(%g: index):
    %2 = kir.load %x[%g] : !kir.view<f32, [N], in>[index] -> f32
    %3 = kir.binary mul %2, %cst : f32
    kir.store %3, %y[%g] : f32, !kir.view<f32, [N], out>[index]
    kir.yield
  }
  kir.return
}
