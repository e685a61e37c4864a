// RUN: tessel-opt %s -split-input-file -pgpu-count-loops | FileCheck %s --enable-var-scope

// COM: A bucketize count (corpus 278's tile after pgpu-tile-shared-reductions): the cut points <= x
// COM: or x is NaN. The NaN disjunct is defined above the loop: the loop counts the compares, and
// COM: after it a NaN lane takes init + trips. The count runs in f32 (cast of the i1 into 0.0 / 1.0,
// COM: a float add), in chunks of 2^24 steps (NB is not known), each chunk's count added as i32.
// CHECK-LABEL: pgpu.kernel @bucketize
// CHECK: %[[NAN:.*]] = pgpu.cmp ne %[[X:.*]], %[[X]]
// CHECK: %[[INIT:.*]] = pgpu.splat %c0_i32
// CHECK: %[[CHUNK:.*]] = pgpu.binary mul %c1, %{{.*}} : index
// CHECK: %[[OUT:.*]] = pgpu.for %c0 to %[[NB:.*]] step %[[CHUNK]] iter_args(%[[INIT]] : !pgpu.fragment<i32, [TILE_M, TILE_N]>)
// CHECK: ^bb0(%[[K0:.*]]: index, %[[ACC:.*]]: !pgpu.fragment<i32, [TILE_M, TILE_N]>):
// CHECK: %[[END:.*]] = pgpu.binary min
// CHECK: %[[ZF:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_M, TILE_N]>
// CHECK: %[[F:.*]] = pgpu.for %[[K0]] to %[[END]] step %c1 iter_args(%[[ZF]] : !pgpu.fragment<f32, [TILE_M, TILE_N]>)
// CHECK: %[[LE:.*]] = pgpu.cmp le
// CHECK-NOT: pgpu.binary or
// CHECK: %[[ONE:.*]] = pgpu.cast %[[LE]] : !pgpu.fragment<i1, [TILE_M, TILE_N]> to !pgpu.fragment<f32, [TILE_M, TILE_N]>
// CHECK: pgpu.binary add %{{.*}}, %[[ONE]] : !pgpu.fragment<f32, [TILE_M, TILE_N]>
// CHECK: %[[N:.*]] = pgpu.cast %[[F]] : !pgpu.fragment<f32, [TILE_M, TILE_N]> to !pgpu.fragment<i32, [TILE_M, TILE_N]>
// CHECK: %[[SUM:.*]] = pgpu.binary add %[[ACC]], %[[N]] : !pgpu.fragment<i32, [TILE_M, TILE_N]>
// CHECK: pgpu.yield %[[SUM]]
// CHECK: %[[TRIPS:.*]] = pgpu.binary max
// CHECK: %[[T32:.*]] = pgpu.cast %[[TRIPS]] : index to i32
// CHECK: %[[TS:.*]] = pgpu.splat %[[T32]]
// CHECK: %[[ALL:.*]] = pgpu.binary add %[[INIT]], %[[TS]]
// CHECK: %[[BINS:.*]] = pgpu.select %[[NAN]], %[[ALL]], %[[OUT]]
// CHECK: pgpu.store %[[BINS]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @bucketize(%x: !pgpu.view<f32, [N, F], in>, %cuts: !pgpu.view<f32, [F, NB], in>, %bins: !pgpu.view<i32, [N, F], out>) attributes {params = [#pgpu.param<"TILE_M", [128], 128>, #pgpu.param<"TILE_N", [32], 32>]} {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i32 = arith.constant 0 : i32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, F], in>
    %F = pgpu.extent %x[1] : !pgpu.view<f32, [N, F], in>
    %NB = pgpu.extent %cuts[1] : !pgpu.view<f32, [F, NB], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      %rows = pgpu.iota %p : !pgpu.fragment<index, [TILE_M]>
      %Ns = pgpu.splat %N : index -> !pgpu.fragment<index, [TILE_M]>
      %rv = pgpu.cmp lt %rows, %Ns : !pgpu.fragment<index, [TILE_M]>
      %fs = pgpu.iota %c0 : !pgpu.fragment<index, [TILE_N]>
      %Fs = pgpu.splat %F : index -> !pgpu.fragment<index, [TILE_N]>
      %fv = pgpu.cmp lt %fs, %Fs : !pgpu.fragment<index, [TILE_N]>
      %r2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [TILE_M]> -> !pgpu.fragment<index, [TILE_M, TILE_N]>
      %f2 = pgpu.broadcast %fs dims [1] : !pgpu.fragment<index, [TILE_N]> -> !pgpu.fragment<index, [TILE_M, TILE_N]>
      %rv2 = pgpu.broadcast %rv dims [0] : !pgpu.fragment<i1, [TILE_M]> -> !pgpu.fragment<i1, [TILE_M, TILE_N]>
      %fv2 = pgpu.broadcast %fv dims [1] : !pgpu.fragment<i1, [TILE_N]> -> !pgpu.fragment<i1, [TILE_M, TILE_N]>
      %v = pgpu.binary and %rv2, %fv2 : !pgpu.fragment<i1, [TILE_M, TILE_N]>
      %xt = pgpu.load %x[%r2, %f2] valid %v : !pgpu.fragment<i1, [TILE_M, TILE_N]> fill %cst : f32 : !pgpu.view<f32, [N, F], in>[!pgpu.fragment<index, [TILE_M, TILE_N]>, !pgpu.fragment<index, [TILE_M, TILE_N]>] -> !pgpu.fragment<f32, [TILE_M, TILE_N]>
      %nan = pgpu.cmp ne %xt, %xt : !pgpu.fragment<f32, [TILE_M, TILE_N]>
      %z = pgpu.splat %c0_i32 : i32 -> !pgpu.fragment<i32, [TILE_M, TILE_N]>
      %count = pgpu.for %c0 to %NB step %c1 iter_args(%z : !pgpu.fragment<i32, [TILE_M, TILE_N]>) -> !pgpu.fragment<i32, [TILE_M, TILE_N]> {
      ^bb0(%k: index, %acc: !pgpu.fragment<i32, [TILE_M, TILE_N]>):
        %c = pgpu.load %cuts[%fs, %k] valid %fv : !pgpu.fragment<i1, [TILE_N]> fill %cst : f32 : !pgpu.view<f32, [F, NB], in>[!pgpu.fragment<index, [TILE_N]>, index] -> !pgpu.fragment<f32, [TILE_N]>
        %c2 = pgpu.broadcast %c dims [1] : !pgpu.fragment<f32, [TILE_N]> -> !pgpu.fragment<f32, [TILE_M, TILE_N]>
        %le = pgpu.cmp le %c2, %xt : !pgpu.fragment<f32, [TILE_M, TILE_N]>
        %past = pgpu.binary or %le, %nan : !pgpu.fragment<i1, [TILE_M, TILE_N]>
        %one = pgpu.cast %past : !pgpu.fragment<i1, [TILE_M, TILE_N]> to !pgpu.fragment<i32, [TILE_M, TILE_N]>
        %next = pgpu.binary add %acc, %one : !pgpu.fragment<i32, [TILE_M, TILE_N]>
        pgpu.yield %next : !pgpu.fragment<i32, [TILE_M, TILE_N]>
      }
      pgpu.store %count, %bins[%r2, %f2] valid %v : !pgpu.fragment<i1, [TILE_M, TILE_N]> : !pgpu.fragment<i32, [TILE_M, TILE_N]>, !pgpu.view<i32, [N, F], out>[!pgpu.fragment<index, [TILE_M, TILE_N]>, !pgpu.fragment<index, [TILE_M, TILE_N]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A count over a constant range of 16 steps (at most 2^24): no chunk loop; the disjunct varies per
// COM: step (read in the loop), so it stays. A scalar count of a scalar predicate.
// CHECK-LABEL: pgpu.kernel @short_count
// CHECK-NOT: pgpu.binary mul
// CHECK: %[[F:.*]] = pgpu.for %c0 to %c16 step %c1 iter_args(%{{.*}} : f32) -> f32
// CHECK: pgpu.binary or
// CHECK: pgpu.cast %{{.*}} : i1 to f32
// CHECK: %[[N:.*]] = pgpu.cast %[[F]] : f32 to i32
// CHECK: %[[S:.*]] = pgpu.binary add %c0_i32, %[[N]] : i32
// CHECK-NOT: pgpu.select
// CHECK: pgpu.store %[[S]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @short_count(%x: !pgpu.view<f32, [16], in>, %y: !pgpu.view<f32, [16], in>, %out: !pgpu.view<i32, [1], out>) {
    %c0_i32 = arith.constant 0 : i32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %t = arith.constant 1 : i1
    %cf = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %count = pgpu.for %c0 to %c16 step %c1 iter_args(%c0_i32 : i32) -> i32 {
      ^bb0(%k: index, %acc: i32):
        %a = pgpu.load %x[%k] valid %t : i1 fill %cf : f32 : !pgpu.view<f32, [16], in>[index] -> f32
        %b = pgpu.load %y[%k] valid %t : i1 fill %cf : f32 : !pgpu.view<f32, [16], in>[index] -> f32
        %lt = pgpu.cmp lt %a, %b : f32
        %ne = pgpu.cmp ne %b, %b : f32
        %e = pgpu.binary or %lt, %ne : i1
        %one = pgpu.cast %e : i1 to i32
        %next = pgpu.binary add %one, %acc : i32
        pgpu.yield %next : i32
      }
      pgpu.store %count, %out[%c0] valid %t : i1 : i32, !pgpu.view<i32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a sum of values (not a cast of an i1), a count whose running value is read in the
// COM: loop (a running rank), a count of an i8 cast (not a 32- or 64-bit carry).
// CHECK-LABEL: pgpu.kernel @kept
// CHECK-NOT: to f32
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @kept(%x: !pgpu.view<i32, [16], in>, %out: !pgpu.view<i32, [3], out>, %o8: !pgpu.view<i8, [1], out>) {
    %c0_i32 = arith.constant 0 : i32
    %c0_i8 = arith.constant 0 : i8
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %t = arith.constant 1 : i1
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %sum = pgpu.for %c0 to %c16 step %c1 iter_args(%c0_i32 : i32) -> i32 {
      ^bb0(%k: index, %acc: i32):
        %a = pgpu.load %x[%k] valid %t : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [16], in>[index] -> i32
        %next = pgpu.binary add %acc, %a : i32
        pgpu.yield %next : i32
      }
      %rank = pgpu.for %c0 to %c16 step %c1 iter_args(%c0_i32 : i32) -> i32 {
      ^bb0(%k: index, %acc: i32):
        %a = pgpu.load %x[%k] valid %t : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [16], in>[index] -> i32
        %lt = pgpu.cmp lt %a, %acc : i32
        %one = pgpu.cast %lt : i1 to i32
        %next = pgpu.binary add %acc, %one : i32
        pgpu.yield %next : i32
      }
      %n8 = pgpu.for %c0 to %c16 step %c1 iter_args(%c0_i8 : i8) -> i8 {
      ^bb0(%k: index, %acc: i8):
        %a = pgpu.load %x[%k] valid %t : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [16], in>[index] -> i32
        %lt = pgpu.cmp lt %a, %c0_i32 : i32
        %one = pgpu.cast %lt : i1 to i8
        %next = pgpu.binary add %acc, %one : i8
        pgpu.yield %next : i8
      }
      pgpu.store %sum, %out[%c0] valid %t : i1 : i32, !pgpu.view<i32, [3], out>[index]
      pgpu.store %rank, %out[%c1] valid %t : i1 : i32, !pgpu.view<i32, [3], out>[index]
      pgpu.store %n8, %o8[%c0] valid %t : i1 : i8, !pgpu.view<i8, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
