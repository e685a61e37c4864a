// RUN: tessel-opt %s -split-input-file -pgpu-sink-reads | FileCheck %s

// COM: An in-place update's read of its view (corpus 360: c = alpha * A B + beta * c) stands before
// COM: the contraction's reduction; only the epilogue uses it, so it moves after the reduction, just
// COM: before its first use, and still before the store of c (seed 000 §4).
// CHECK-LABEL: pgpu.kernel @epilogue_read
// CHECK: pgpu.range_reduce
// CHECK: pgpu.binary mul %alpha
// CHECK-NEXT: %[[C:.*]] = pgpu.load %c[
// CHECK-NEXT: pgpu.binary mul %beta, %[[C]]
// CHECK: pgpu.store %{{.*}}, %c[
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @epilogue_read(%a: !pgpu.view<f32, [4, 8], in>, %b: !pgpu.view<f32, [8, 4], in>, %c: !pgpu.view<f32, [4, 4], inout>, %alpha: f32, %beta: f32) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%c4, %c4) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%i: index, %j: index):
        %old = pgpu.load %c[%i, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 4], inout>[index, index] -> f32
        %s = pgpu.range_reduce %c0 to %c8 identity(%zero : f32) -> (f32) element {
        ^bb0(%k: index):
          %x = pgpu.load %a[%i, %k] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 8], in>[index, index] -> f32
          %y = pgpu.load %b[%k, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [8, 4], in>[index, index] -> f32
          %m = pgpu.binary mul %x, %y : f32
          pgpu.yield %m : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %t = pgpu.binary add %l, %r : f32
          pgpu.yield %t : f32
        }
        %u = pgpu.binary mul %alpha, %s : f32
        %v = pgpu.binary mul %beta, %old : f32
        %w = pgpu.binary add %u, %v : f32
        pgpu.store %w, %c[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [4, 4], inout>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: an `in` view's read (a residual) is placed by construction where it is first
// COM: needed, or before a reduction on purpose (a row's scalar statistics); it stays.
// CHECK-LABEL: pgpu.kernel @input_past_store
// CHECK: %[[R:.*]] = pgpu.load %r[
// CHECK-NEXT: pgpu.load %x[
// CHECK-NEXT: pgpu.store %{{.*}}, %y[
// CHECK-NEXT: pgpu.for
// CHECK: pgpu.binary add %{{.*}}, %[[R]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @input_past_store(%x: !pgpu.view<f32, [4, 16], in>, %r: !pgpu.view<f32, [4, 16], in>, %y: !pgpu.view<f32, [4, 16], out>, %z: !pgpu.view<f32, [4, 16], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %res = pgpu.load %r[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], in>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %x0 = pgpu.load %x[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], in>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      pgpu.store %x0, %y[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], out>[index, !pgpu.fragment<index, [16]>]
      %acc = pgpu.for %c0 to %c3 step %c1 iter_args(%x0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %n = pgpu.binary add %c, %c : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %o = pgpu.binary add %acc, %res : !pgpu.fragment<f32, [16]>
      pgpu.store %o, %z[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], out>[index, !pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a read the loop itself uses (the contraction's operand row) stays before the loop,
// COM: never inside it; a read of an `inout` view with a store of that view before its first use (it means
// COM: the values before the store); a read with only pure ops before its first use (nothing gained).
// CHECK-LABEL: pgpu.kernel @keep
// CHECK: %[[W:.*]] = pgpu.load %w[
// CHECK-NEXT: %[[S:.*]] = pgpu.load %s[
// CHECK-NEXT: %[[Q:.*]] = pgpu.load %q[
// CHECK-NEXT: pgpu.binary mul %[[Q]], %[[Q]]
// CHECK-NEXT: pgpu.store %{{.*}}, %s[
// CHECK-NEXT: pgpu.for
// CHECK: pgpu.binary add %{{.*}}, %[[W]]
// CHECK: pgpu.binary add %{{.*}}, %[[S]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @keep(%w: !pgpu.view<f32, [4, 16], in>, %s: !pgpu.view<f32, [4, 16], inout>, %q: !pgpu.view<f32, [4, 16], in>, %y: !pgpu.view<f32, [4, 16], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %row = pgpu.load %w[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], in>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %old = pgpu.load %s[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %q0 = pgpu.load %q[%p, %i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4, 16], in>[index, !pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %q2 = pgpu.binary mul %q0, %q0 : !pgpu.fragment<f32, [16]>
      pgpu.store %q2, %s[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], inout>[index, !pgpu.fragment<index, [16]>]
      %acc = pgpu.for %c0 to %c3 step %c1 iter_args(%q2 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %n = pgpu.binary add %c, %row : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %o = pgpu.binary add %acc, %old : !pgpu.fragment<f32, [16]>
      pgpu.store %o, %y[%p, %i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [4, 16], out>[index, !pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a read of an `inout` view with a last-program finalization between it and its first
// COM: use (another program's writes are ordered there).
// CHECK-LABEL: pgpu.kernel @keep_finalization
// CHECK: %[[S:.*]] = pgpu.load %s[
// CHECK-NEXT: pgpu.last_program
// CHECK: pgpu.binary add %[[S]], %[[S]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @keep_finalization(%s: !pgpu.view<f32, [4], inout>, %y: !pgpu.view<f32, [4], out>, %t: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%c4) segment 0 roles ["axis0"] {
      ^bb0(%i: index):
        %old = pgpu.load %s[%i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [4], inout>[index] -> f32
        pgpu.last_program %t[%c0] arrivals %c4 : !pgpu.buffer<i32, [1], workspace> {
          pgpu.yield
        }
        %o = pgpu.binary add %old, %old : f32
        pgpu.store %o, %y[%i] valid %true : i1 : f32, !pgpu.view<f32, [4], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
