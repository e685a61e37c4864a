// RUN: tessel-opt %s -split-input-file -pgpu-merge-contract-add | FileCheck %s

// COM: A zero-initialized contraction whose sole use is an addition: the other addend becomes its
// COM: accumulator (seed 002 §3.4), built at the addition.
// CHECK-LABEL: pgpu.kernel @merge
// CHECK: %[[Z:.*]] = pgpu.binary mul
// CHECK-NEXT: %[[C:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %[[Z]] reduce([1], [0])
// CHECK-NOT: pgpu.binary add
// CHECK: pgpu.store %[[C]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @merge(%a: !pgpu.view<f16, [16, 16], in>, %b: !pgpu.view<f16, [16, 16], in>,
                     %c: !pgpu.view<f32, [16, 16], inout>) {
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %p : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %l = pgpu.load %a[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %r = pgpu.load %b[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %old = pgpu.load %c[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], inout>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %prod = pgpu.contract %l, %r, %acc0 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
      %twos = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %z = pgpu.binary mul %old, %twos : !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %z, %prod : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %sum, %c[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], inout>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the result has a second use (it is stored too), and a scaled result is
// COM: left alone (the scaling sits between the contraction and the addition).
// CHECK-LABEL: pgpu.kernel @keep
// CHECK: %[[P:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce
// CHECK: pgpu.binary add %{{.*}}, %[[P]]
// CHECK: %[[Q:.*]] = pgpu.contract
// CHECK: %[[S:.*]] = pgpu.binary mul %[[Q]]
// CHECK: pgpu.binary add %{{.*}}, %[[S]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @keep(%a: !pgpu.view<f16, [16, 16], in>, %b: !pgpu.view<f16, [16, 16], in>,
                    %c: !pgpu.view<f32, [16, 16], inout>, %d: !pgpu.view<f32, [16, 16], out>) {
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %p : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %l = pgpu.load %a[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %r = pgpu.load %b[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %old = pgpu.load %c[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], inout>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %prod = pgpu.contract %l, %r, %acc0 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %old, %prod : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %prod, %d[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      %prod2 = pgpu.contract %l, %r, %acc0 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
      %twos = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %scaled = pgpu.binary mul %prod2, %twos : !pgpu.fragment<f32, [16, 16]>
      %sum2 = pgpu.binary add %sum, %scaled : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %sum2, %c[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], inout>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
