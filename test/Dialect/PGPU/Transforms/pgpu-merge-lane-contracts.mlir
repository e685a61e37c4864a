// RUN: tessel-opt %s -split-input-file -pgpu-merge-lane-contracts | FileCheck %s

// COM: Two contractions into one accumulator whose lhs read x[r, 2j] and x[r, 2j + 1]: one contraction
// COM: over k = 2j + p (the loop runs to 2 * 32), x[r, k] read once as a load, the rhs the even lane's
// COM: row k / 2 at even k and the odd lane's at odd k (selected before the common transpose);
// COM: (2 (k / 2)) / 8 becomes k / 8.
// CHECK-LABEL: pgpu.kernel @lanes
// CHECK: %[[U:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : index
// CHECK: pgpu.for %{{.*}} to %[[U]] step
// CHECK-NEXT: ^bb0(%[[K0:.*]]: index,
// CHECK-NEXT: %[[K:.*]] = pgpu.iota %[[K0]] : !pgpu.fragment<index, [BK]>
// CHECK: %[[HALF:.*]] = pgpu.binary div %[[K]], %{{.*}} : !pgpu.fragment<index, [BK]>
// CHECK: %[[PAR:.*]] = pgpu.binary rem %[[K]], %{{.*}} : !pgpu.fragment<index, [BK]>
// CHECK: pgpu.binary div %[[K]], %{{.*}} : !pgpu.fragment<index, [BK]>
// CHECK: %[[KK:.*]] = pgpu.broadcast %[[K]] dims [1]
// CHECK: %[[X:.*]] = pgpu.load %x[%{{.*}}, %[[KK]]]
// CHECK: %[[EVEN:.*]] = pgpu.cmp eq %[[PAR]]
// CHECK: %[[ROWS:.*]] = pgpu.broadcast %[[EVEN]] dims [1]
// CHECK: %[[SEL:.*]] = pgpu.select %[[ROWS]]
// CHECK: %[[W:.*]] = pgpu.transpose %[[SEL]] [1, 0]
// CHECK: %[[C:.*]] = pgpu.contract %[[X]], %[[W]], %{{.*}} reduce([1], [0])
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.yield %[[C]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @lanes(%x: !pgpu.view<f16, [16, 64], in>, %w: !pgpu.view<f16, [16, 32], in>,
                     %s: !pgpu.view<f16, [16, 8], in>, %y: !pgpu.view<f32, [16, 16], out>)
      attributes {params = [#pgpu.param<"BK", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %r = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %bk = pgpu.param "BK" : index
      %res = pgpu.for %c0 to %c32 step %bk iter_args(%acc0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%j0: index, %acc: !pgpu.fragment<f32, [16, 16]>):
        %j = pgpu.iota %j0 : !pgpu.fragment<index, [BK]>
        %n = pgpu.splat %c32 : index -> !pgpu.fragment<index, [BK]>
        %ok = pgpu.cmp lt %j, %n : !pgpu.fragment<index, [BK]>
        %rr = pgpu.broadcast %r dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, BK]>
        %okk = pgpu.broadcast %ok dims [1] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [16, BK]>
        %twos = pgpu.splat %c2 : index -> !pgpu.fragment<index, [BK]>
        %ones = pgpu.splat %c1 : index -> !pgpu.fragment<index, [BK]>
        %eights = pgpu.splat %c8 : index -> !pgpu.fragment<index, [BK]>
        %e = pgpu.binary mul %twos, %j : !pgpu.fragment<index, [BK]>
        %o = pgpu.binary add %e, %ones : !pgpu.fragment<index, [BK]>
        %ee = pgpu.broadcast %e dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [16, BK]>
        %oo = pgpu.broadcast %o dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [16, BK]>
        %xe = pgpu.gather %x[%rr, %ee] valid %okk : !pgpu.fragment<i1, [16, BK]> fill %zh : f16 : !pgpu.view<f16, [16, 64], in>[!pgpu.fragment<index, [16, BK]>, !pgpu.fragment<index, [16, BK]>] -> !pgpu.fragment<f16, [16, BK]>
        %jj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [16, BK]>
        %we = pgpu.load %w[%rr, %jj] valid %okk : !pgpu.fragment<i1, [16, BK]> fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, BK]>, !pgpu.fragment<index, [16, BK]>] -> !pgpu.fragment<f16, [16, BK]>
        %g = pgpu.binary div %e, %eights : !pgpu.fragment<index, [BK]>
        %gg = pgpu.broadcast %g dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [16, BK]>
        %sc = pgpu.gather %s[%rr, %gg] valid %okk : !pgpu.fragment<i1, [16, BK]> fill %zh : f16 : !pgpu.view<f16, [16, 8], in>[!pgpu.fragment<index, [16, BK]>, !pgpu.fragment<index, [16, BK]>] -> !pgpu.fragment<f16, [16, BK]>
        %wo = pgpu.binary mul %we, %sc : !pgpu.fragment<f16, [16, BK]>
        %te = pgpu.transpose %we [1, 0] : !pgpu.fragment<f16, [16, BK]> -> !pgpu.fragment<f16, [BK, 16]>
        %to = pgpu.transpose %wo [1, 0] : !pgpu.fragment<f16, [16, BK]> -> !pgpu.fragment<f16, [BK, 16]>
        %ce = pgpu.contract %xe, %te, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, BK]>, !pgpu.fragment<f16, [BK, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %xo = pgpu.gather %x[%rr, %oo] valid %okk : !pgpu.fragment<i1, [16, BK]> fill %zh : f16 : !pgpu.view<f16, [16, 64], in>[!pgpu.fragment<index, [16, BK]>, !pgpu.fragment<index, [16, BK]>] -> !pgpu.fragment<f16, [16, BK]>
        %co = pgpu.contract %xo, %to, %ce reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, BK]>, !pgpu.fragment<f16, [BK, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %co : !pgpu.fragment<f32, [16, 16]>
      }
      %i = pgpu.broadcast %r dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jn = pgpu.broadcast %r dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %res, %y[%i, %jn] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the lanes are 2j and 2j + 2 (not one run's even and odd lanes).
// CHECK-LABEL: pgpu.kernel @apart
// CHECK: pgpu.for %{{.*}} to %c32
// CHECK: pgpu.gather %x
// CHECK: pgpu.contract
// CHECK: pgpu.gather %x
// CHECK: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @apart(%x: !pgpu.view<f16, [16, 66], in>, %w: !pgpu.view<f16, [16, 32], in>,
                     %y: !pgpu.view<f32, [16, 16], out>)
      attributes {params = [#pgpu.param<"BK", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %r = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %bk = pgpu.param "BK" : index
      %res = pgpu.for %c0 to %c32 step %bk iter_args(%acc0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%j0: index, %acc: !pgpu.fragment<f32, [16, 16]>):
        %j = pgpu.iota %j0 : !pgpu.fragment<index, [BK]>
        %n = pgpu.splat %c32 : index -> !pgpu.fragment<index, [BK]>
        %ok = pgpu.cmp lt %j, %n : !pgpu.fragment<index, [BK]>
        %rr = pgpu.broadcast %r dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, BK]>
        %okk = pgpu.broadcast %ok dims [1] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [16, BK]>
        %twos = pgpu.splat %c2 : index -> !pgpu.fragment<index, [BK]>
        %e = pgpu.binary mul %twos, %j : !pgpu.fragment<index, [BK]>
        %o = pgpu.binary add %e, %twos : !pgpu.fragment<index, [BK]>
        %ee = pgpu.broadcast %e dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [16, BK]>
        %oo = pgpu.broadcast %o dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [16, BK]>
        %xe = pgpu.gather %x[%rr, %ee] valid %okk : !pgpu.fragment<i1, [16, BK]> fill %zh : f16 : !pgpu.view<f16, [16, 66], in>[!pgpu.fragment<index, [16, BK]>, !pgpu.fragment<index, [16, BK]>] -> !pgpu.fragment<f16, [16, BK]>
        %jj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [16, BK]>
        %we = pgpu.load %w[%rr, %jj] valid %okk : !pgpu.fragment<i1, [16, BK]> fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, BK]>, !pgpu.fragment<index, [16, BK]>] -> !pgpu.fragment<f16, [16, BK]>
        %te = pgpu.transpose %we [1, 0] : !pgpu.fragment<f16, [16, BK]> -> !pgpu.fragment<f16, [BK, 16]>
        %ce = pgpu.contract %xe, %te, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, BK]>, !pgpu.fragment<f16, [BK, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %xo = pgpu.gather %x[%rr, %oo] valid %okk : !pgpu.fragment<i1, [16, BK]> fill %zh : f16 : !pgpu.view<f16, [16, 66], in>[!pgpu.fragment<index, [16, BK]>, !pgpu.fragment<index, [16, BK]>] -> !pgpu.fragment<f16, [16, BK]>
        %co = pgpu.contract %xo, %te, %ce reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, BK]>, !pgpu.fragment<f16, [BK, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %co : !pgpu.fragment<f32, [16, 16]>
      }
      %i = pgpu.broadcast %r dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jn = pgpu.broadcast %r dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %res, %y[%i, %jn] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
