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

// -----

// COM: A written (`inout`) view read, another view stored, the same read again (a state row reduced into
// COM: y, y stored, the row updated and stored back: corpus 244): nothing between the reads writes %s and
// COM: views never overlap, so the second read takes the first's result.
// CHECK-LABEL: pgpu.kernel @reuse_written
// CHECK: %[[R:.*]] = pgpu.load %s[%{{.*}}, %{{.*}}] valid
// CHECK: pgpu.store %{{.*}}, %y
// CHECK-NOT: pgpu.load %s
// CHECK: pgpu.binary mul %[[R]]
// CHECK: pgpu.store %{{.*}}, %s
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @reuse_written(%s: !pgpu.view<f32, [4, 16], inout>, %y: !pgpu.view<f32, [4, 16], out>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %r1 = pgpu.load %s[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      pgpu.store %r1, %y[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], out>[index, !pgpu.fragment<index, [16]>]
      %r2 = pgpu.load %s[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %t = pgpu.binary mul %r2, %r2 : !pgpu.fragment<f32, [16]>
      pgpu.store %t, %s[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: an atomic between two reads of a written view (another program's writes may be
// COM: ordered before the second read), even though it updates another view.
// CHECK-LABEL: pgpu.kernel @keep_atomic
// CHECK: pgpu.load %s
// CHECK: pgpu.atomic_rmw
// CHECK: pgpu.load %s
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @keep_atomic(%s: !pgpu.view<f32, [4, 16], inout>, %c: !pgpu.view<i32, [1], inout>, %y: !pgpu.view<f32, [4, 16], out>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1 : i32
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %r1 = pgpu.load %s[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %old = pgpu.atomic_rmw add %one, %c[%c0] valid %true : i1 order acq_rel sharing invocation : i32, !pgpu.view<i32, [1], inout>[index] -> i32
      %r2 = pgpu.load %s[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %t = pgpu.binary add %r1, %r2 : !pgpu.fragment<f32, [16]>
      pgpu.store %t, %y[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], out>[index, !pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
