// RUN: tessel-opt %s -split-input-file -kir-to-pgpu | FileCheck %s

// A top-level scalar read used by two worksets is read again in each (seed 002 §3.4: top-level values
// are replayed per workset). Found by the DSL fuzzer: the second workset used the load the first had
// emitted inside its own execution group ("operand #0 does not dominate this use").
// CHECK-LABEL: pgpu.kernel @two_worksets
// CHECK: pgpu.execution_group
// CHECK: [[A:%[0-9]+]] = pgpu.load %x[%c0, %c0]
// CHECK: pgpu.binary add [[A]],
// CHECK: pgpu.execution_group
// CHECK: [[B:%[0-9]+]] = pgpu.load %x[%c0, %c0]
// CHECK: pgpu.binary add [[B]],
kir.kernel @two_worksets(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>, %z: !kir.view<f32, [N], out>) {
  %0 = kir.extent "M"
  %1 = kir.extent "N"
  %c0 = arith.constant 0 : index
  %rows = kir.domain %c0 to %0
  %cols = kir.domain %c0 to %1
  %s = kir.load %x[%c0, %c0] : !kir.view<f32, [M, N], in>[index, index] -> f32
  %t = kir.load %x[%rows, %cols] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  %sb = kir.broadcast %s over(%rows, %cols) dims [] : f32 -> tensor<?x?xf32>
  %u = kir.binary add %sb, %t : tensor<?x?xf32>
  kir.store %u, %y[%rows, %cols] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
  %i = kir.indices %cols : tensor<?xindex>
  %f = kir.cast %i : tensor<?xindex> to tensor<?xf32>
  %sc = kir.broadcast %s over(%cols) dims [] : f32 -> tensor<?xf32>
  %v = kir.binary add %sc, %f : tensor<?xf32>
  kir.store %v, %z[%cols] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}

// -----

// Within one workset the read is realized once and reused by both of its uses (nothing is re-read).
// CHECK-LABEL: pgpu.kernel @one_workset
// CHECK: pgpu.execution_group
// CHECK: [[A:%[0-9]+]] = pgpu.load %x[%c0, %c0]
// CHECK-NOT: pgpu.load
// CHECK: pgpu.binary mul [[A]], [[A]]
kir.kernel @one_workset(%x: !kir.view<f32, [M, N], in>, %z: !kir.view<f32, [N], out>) {
  %0 = kir.extent "M"
  %1 = kir.extent "N"
  %c0 = arith.constant 0 : index
  %cols = kir.domain %c0 to %1
  %s = kir.load %x[%c0, %c0] : !kir.view<f32, [M, N], in>[index, index] -> f32
  %s2 = kir.binary mul %s, %s : f32
  %sc = kir.broadcast %s2 over(%cols) dims [] : f32 -> tensor<?xf32>
  kir.store %sc, %z[%cols] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}

// -----

// A comparison of float scalars (a kernel scalar against a constant) is float math, replayed in the
// workset, not a launch-time fact: emitted outside the program space it broke invariant 2 ("'pgpu.cmp'
// op is outside the program space"; found by the DSL fuzzer). An integer comparison stays a launch fact.
// CHECK-LABEL: pgpu.kernel @scalar_masks
// CHECK: pgpu.cmp gt %q, %{{.*}} : i32
// CHECK: pgpu.program_space
// CHECK: pgpu.execution_group
// CHECK: pgpu.cmp gt %s, %{{.*}} : f32
kir.kernel @scalar_masks(%x: !kir.view<f32, [N], in>, %y: !kir.view<i1, [N], out>, %z: !kir.view<i1, [N], out>, %s: f32, %q: i32) {
  %0 = kir.extent "N"
  %1 = arith.constant 0 : index
  %2 = kir.domain %1 to %0
  %4 = arith.constant 0.0 : f32
  %5 = kir.broadcast %4 over(%2) dims [] : f32 -> tensor<?xf32>
  %7 = arith.constant 0.5 : f32
  %15 = arith.constant 1 : i32
  %3 = kir.load %x[%2] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %6 = kir.cmp gt %3, %5 : tensor<?xf32>
  %8 = kir.cmp gt %s, %7 : f32
  %9 = kir.broadcast %8 over(%2) dims [] : i1 -> tensor<?xi1>
  %10 = kir.binary and %6, %9 : tensor<?xi1>
  kir.store %10, %y[%2] : tensor<?xi1>, !kir.view<i1, [N], out>[!kir.domain]
  %16 = kir.cmp gt %q, %15 : i32
  %17 = kir.broadcast %16 over(%2) dims [] : i1 -> tensor<?xi1>
  %18 = kir.binary and %6, %17 : tensor<?xi1>
  kir.store %18, %z[%2] : tensor<?xi1>, !kir.view<i1, [N], out>[!kir.domain]
  kir.return
}
