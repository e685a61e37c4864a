// RUN: tessel-opt %s -split-input-file -pgpu-merge-contract-add | FileCheck %s

// COM: A chain of contractions accumulating into one another down to a zero splat (the exact bf16
// COM: parts of an f32 operand, pgpu-form-tiles / kir-to-pgpu) whose top's sole use is an addition:
// COM: the addend joins the bottom's accumulator, the chain rebuilt at the addition.
// CHECK-LABEL: pgpu.kernel @chain
// CHECK: %[[Z:.*]] = pgpu.binary mul
// CHECK-NEXT: %[[C1:.*]] = pgpu.contract %[[LO:.*]], %[[R:.*]], %[[Z]] reduce([1], [0])
// CHECK-NEXT: %[[C2:.*]] = pgpu.contract %[[HI:.*]], %[[R]], %[[C1]] reduce([1], [0])
// CHECK-NOT: pgpu.binary add
// CHECK: pgpu.store %[[C2]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @chain(%a: !pgpu.view<bf16, [16, 16], in>, %b: !pgpu.view<bf16, [16, 16], in>,
                     %c: !pgpu.view<f32, [16, 16], inout>) {
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : bf16
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %p : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %lo = pgpu.load %a[%ii, %jj] valid %true : i1 fill %zh : bf16 : !pgpu.view<bf16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<bf16, [16, 16]>
      %hi = pgpu.load %a[%jj, %ii] valid %true : i1 fill %zh : bf16 : !pgpu.view<bf16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<bf16, [16, 16]>
      %r = pgpu.load %b[%ii, %jj] valid %true : i1 fill %zh : bf16 : !pgpu.view<bf16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<bf16, [16, 16]>
      %old = pgpu.load %c[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], inout>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %p1 = pgpu.contract %lo, %r, %acc0 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
      %p2 = pgpu.contract %hi, %r, %p1 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
      %twos = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %z = pgpu.binary mul %old, %twos : !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %z, %p2 : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %sum, %c[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], inout>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a chain link's result has another use (the lower contraction is stored too),
// COM: so the addend cannot move below it; and a chain whose bottom is not a zero splat (it starts
// COM: from the old values) keeps its addition.
// CHECK-LABEL: pgpu.kernel @keep_chain
// CHECK: %[[P1:.*]] = pgpu.contract
// CHECK: %[[P2:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %[[P1]]
// CHECK: pgpu.binary add %{{.*}}, %[[P2]]
// CHECK: %[[Q1:.*]] = pgpu.contract
// CHECK: %[[Q2:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %[[Q1]]
// CHECK: pgpu.binary add %{{.*}}, %[[Q2]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @keep_chain(%a: !pgpu.view<bf16, [16, 16], in>, %b: !pgpu.view<bf16, [16, 16], in>,
                          %c: !pgpu.view<f32, [16, 16], inout>, %d: !pgpu.view<f32, [16, 16], out>) {
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : bf16
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %p : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %lo = pgpu.load %a[%ii, %jj] valid %true : i1 fill %zh : bf16 : !pgpu.view<bf16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<bf16, [16, 16]>
      %hi = pgpu.load %a[%jj, %ii] valid %true : i1 fill %zh : bf16 : !pgpu.view<bf16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<bf16, [16, 16]>
      %r = pgpu.load %b[%ii, %jj] valid %true : i1 fill %zh : bf16 : !pgpu.view<bf16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<bf16, [16, 16]>
      %old = pgpu.load %c[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], inout>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %p1 = pgpu.contract %lo, %r, %acc0 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
      %p2 = pgpu.contract %hi, %r, %p1 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
      pgpu.store %p1, %d[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      %twos = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %z = pgpu.binary mul %old, %twos : !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %z, %p2 : !pgpu.fragment<f32, [16, 16]>
      %q1 = pgpu.contract %lo, %r, %old reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
      %q2 = pgpu.contract %hi, %r, %q1 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<bf16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
      %sum2 = pgpu.binary add %sum, %q2 : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %sum2, %c[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], inout>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
