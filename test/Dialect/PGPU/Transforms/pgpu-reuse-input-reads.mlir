// RUN: tessel-opt %s -split-input-file -pgpu-reuse-input-reads | FileCheck %s

// COM: A staged row read, stored, and read again (a top-k's second round): the
// COM: view is `in`, so the second read takes the first's result across the store (seed 002 §3.4).
// CHECK-LABEL: pgpu.kernel @reuse
// CHECK: %[[R:.*]] = pgpu.load %x[%{{.*}}, %[[I:.*]]] valid
// CHECK: pgpu.store
// CHECK-NOT: pgpu.load %x
// CHECK: pgpu.binary add %[[R]], %[[R]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @reuse(%x: !pgpu.view<f32, [4, 16], in>, %m: !pgpu.view<f32, [4, 16], out>, %y: !pgpu.view<f32, [4, 16], out>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %r1 = pgpu.load %x[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], in>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      pgpu.store %r1, %m[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], out>[index, !pgpu.fragment<index, [16]>]
      %r2 = pgpu.load %x[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], in>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %t = pgpu.binary add %r1, %r2 : !pgpu.fragment<f32, [16]>
      pgpu.store %t, %y[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], out>[index, !pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: an `inout` view may be written between the reads (here it is); reads of an
// COM: `in` view at other coordinates; a read inside a loop keeps its own read of the row read
// COM: before the loop (different blocks).
// CHECK-LABEL: pgpu.kernel @keep
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}]
// CHECK: pgpu.store
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}]
// CHECK: pgpu.load %w[
// CHECK: pgpu.load %w[
// CHECK: pgpu.for
// CHECK: pgpu.load %w[
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @keep(%x: !pgpu.view<f32, [4, 16], inout>, %w: !pgpu.view<f32, [4, 16], in>, %y: !pgpu.view<f32, [4, 16], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %j = pgpu.iota %c1 : !pgpu.fragment<index, [16]>
      %r1 = pgpu.load %x[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      pgpu.store %r1, %x[%p, %j] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>]
      %r2 = pgpu.load %x[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %w1 = pgpu.load %w[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], in>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %w2 = pgpu.load %w[%p, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], in>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %a = pgpu.binary add %r2, %w1 : !pgpu.fragment<f32, [16]>
      %b = pgpu.binary add %a, %w2 : !pgpu.fragment<f32, [16]>
      %acc = pgpu.for %c0 to %c3 step %c1 iter_args(%b : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %w3 = pgpu.load %w[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], in>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
        %n = pgpu.binary add %c, %w3 : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      pgpu.store %acc, %y[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], out>[index, !pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
