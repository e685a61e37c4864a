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

// -----

// COM: A causal tap at offset 0 reads the row's own ids again (corpus 291: seq_idx[b, t] as `mine`,
// COM: then seq_idx[b, t + 0] valid t + 0 >= 0): t counts up from 0, so that validity is true in every
// COM: lane, like the first read's, and the fills never reach a lane: the gather takes the load. In the
// COM: tail the same conjunct beside the row's bound %in leaves both reads valid on %in with equal fills.
// CHECK-LABEL: pgpu.kernel @taps
// CHECK: pgpu.for
// CHECK: %[[M:.*]] = pgpu.load %s[%{{.*}}, %[[T:.*]]] valid
// CHECK-NOT: pgpu.gather %s[%{{.*}}, %[[T]]]
// CHECK: pgpu.binary add %[[M]], %[[M]]
// CHECK: %[[N:.*]] = pgpu.load %s[%{{.*}}, %[[U:.*]]] valid
// CHECK-NOT: pgpu.gather %s[%{{.*}}, %[[U]]]
// CHECK: pgpu.binary add %[[N]], %[[N]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @taps(%s: !pgpu.view<i32, [4, L], in>, %y: !pgpu.view<i32, [4, L], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %z = arith.constant 0 : i32
    %m1 = arith.constant -1 : i32
    %L = pgpu.extent %s[1] : !pgpu.view<i32, [4, L], in>
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      %b = pgpu.param "BLOCK" : index
      pgpu.for %c0 to %L step %b {
      ^bb0(%k: index):
        %t = pgpu.iota %k : !pgpu.fragment<index, [BLOCK]>
        %all = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
        %zs = pgpu.splat %c0 : index -> !pgpu.fragment<index, [BLOCK]>
        %ge = pgpu.cmp ge %t, %zs : !pgpu.fragment<index, [BLOCK]>
        %mine = pgpu.load %s[%p, %t] valid %all : !pgpu.fragment<i1, [BLOCK]> fill %z : i32 : !pgpu.view<i32, [4, L], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %tap = pgpu.gather %s[%p, %t] valid %ge : !pgpu.fragment<i1, [BLOCK]> fill %m1 : i32 : !pgpu.view<i32, [4, L], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %v = pgpu.binary add %mine, %tap : !pgpu.fragment<i32, [BLOCK]>
        pgpu.store %v, %y[%p, %t] valid %all : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i32, [BLOCK]>, !pgpu.view<i32, [4, L], out>[index, !pgpu.fragment<index, [BLOCK]>]
        %Ls = pgpu.splat %L : index -> !pgpu.fragment<index, [BLOCK]>
        %in = pgpu.cmp lt %t, %Ls : !pgpu.fragment<index, [BLOCK]>
        %ok1 = pgpu.binary and %all, %in : !pgpu.fragment<i1, [BLOCK]>
        %ok2 = pgpu.binary and %ge, %in : !pgpu.fragment<i1, [BLOCK]>
        %a = pgpu.load %s[%p, %t] valid %ok1 : !pgpu.fragment<i1, [BLOCK]> fill %m1 : i32 : !pgpu.view<i32, [4, L], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %g = pgpu.gather %s[%p, %t] valid %ok2 : !pgpu.fragment<i1, [BLOCK]> fill %m1 : i32 : !pgpu.view<i32, [4, L], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %w = pgpu.binary add %a, %g : !pgpu.fragment<i32, [BLOCK]>
        pgpu.store %w, %y[%p, %t] valid %in : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i32, [BLOCK]>, !pgpu.view<i32, [4, L], out>[index, !pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a tap reaching back (t - 3 >= 0 is false in the first lanes), and a tail read
// COM: whose fill differs where the row's bound masks lanes.
// CHECK-LABEL: pgpu.kernel @back_taps
// CHECK: pgpu.load %s
// CHECK: pgpu.gather %s
// CHECK: pgpu.load %s
// CHECK: pgpu.gather %s
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @back_taps(%s: !pgpu.view<i32, [4, L], in>, %y: !pgpu.view<i32, [4, L], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %cm3 = arith.constant -3 : index
    %true = arith.constant true
    %z = arith.constant 0 : i32
    %m1 = arith.constant -1 : i32
    %L = pgpu.extent %s[1] : !pgpu.view<i32, [4, L], in>
    pgpu.program_space(%c4) {
    ^bb0(%p: index):
      %b = pgpu.param "BLOCK" : index
      pgpu.for %c0 to %L step %b {
      ^bb0(%k: index):
        %t = pgpu.iota %k : !pgpu.fragment<index, [BLOCK]>
        %all = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
        %zs = pgpu.splat %c0 : index -> !pgpu.fragment<index, [BLOCK]>
        %sh = pgpu.splat %cm3 : index -> !pgpu.fragment<index, [BLOCK]>
        %src = pgpu.binary add %t, %sh : !pgpu.fragment<index, [BLOCK]>
        %ge = pgpu.cmp ge %src, %zs : !pgpu.fragment<index, [BLOCK]>
        %mine = pgpu.load %s[%p, %t] valid %all : !pgpu.fragment<i1, [BLOCK]> fill %z : i32 : !pgpu.view<i32, [4, L], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %tap = pgpu.gather %s[%p, %t] valid %ge : !pgpu.fragment<i1, [BLOCK]> fill %m1 : i32 : !pgpu.view<i32, [4, L], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %v = pgpu.binary add %mine, %tap : !pgpu.fragment<i32, [BLOCK]>
        pgpu.store %v, %y[%p, %t] valid %all : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i32, [BLOCK]>, !pgpu.view<i32, [4, L], out>[index, !pgpu.fragment<index, [BLOCK]>]
        %Ls = pgpu.splat %L : index -> !pgpu.fragment<index, [BLOCK]>
        %in = pgpu.cmp lt %t, %Ls : !pgpu.fragment<index, [BLOCK]>
        %t0 = pgpu.cmp ge %t, %zs : !pgpu.fragment<index, [BLOCK]>
        %ok2 = pgpu.binary and %t0, %in : !pgpu.fragment<i1, [BLOCK]>
        %a = pgpu.load %s[%p, %t] valid %in : !pgpu.fragment<i1, [BLOCK]> fill %z : i32 : !pgpu.view<i32, [4, L], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %g = pgpu.gather %s[%p, %t] valid %ok2 : !pgpu.fragment<i1, [BLOCK]> fill %m1 : i32 : !pgpu.view<i32, [4, L], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %w = pgpu.binary add %a, %g : !pgpu.fragment<i32, [BLOCK]>
        pgpu.store %w, %y[%p, %t] valid %in : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i32, [BLOCK]>, !pgpu.view<i32, [4, L], out>[index, !pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
