// RUN: tessel-opt %s -split-input-file -pgpu-tile-shared-reductions | FileCheck %s

// COM: A bucketize (278): bins[n, f] = #{c : cuts[f, c] <= x[n, f] or x[n, f] is NaN}. The walked read
// COM: cuts[f, c] does not depend on n: a program owns [TILE_M, TILE_N] members, x's tile and its NaN
// COM: test are read and computed once before a serial walk over c whose trips read one [TILE_N] row
// COM: of cut points for the tile's TILE_M rows and add each member's term into a [TILE_M, TILE_N]
// COM: carry; no cross-lane reduction is left, and the store writes the tile under both lane validities.
// CHECK-LABEL: pgpu.kernel @bucketize
// CHECK-SAME: #pgpu.param<"TILE_M", [1, 2, 4, 8, 16, 32, 64, 128, 256], 128>
// CHECK-SAME: #pgpu.param<"TILE_N", [16, 32, 64, 128, 256], 32>
// CHECK: %[[TM:.*]] = pgpu.param "TILE_M" : index
// CHECK: %[[EM:.*]] = pgpu.ceil_div %[[N:.*]], %[[TM]] : index
// CHECK: %[[TN:.*]] = pgpu.param "TILE_N" : index
// CHECK: %[[EN:.*]] = pgpu.ceil_div %[[F:.*]], %[[TN]] : index
// CHECK: pgpu.program_space(%{{.*}}) {
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0
// CHECK-NEXT: ^bb0(%[[PM:.*]]: index, %[[PN:.*]]: index):
// CHECK: %[[ROWS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [TILE_M]>
// CHECK: %[[COLS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [TILE_N]>
// CHECK: %[[X:.*]] = pgpu.load %x[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_M, TILE_N]> fill %{{.*}} : f32 : !pgpu.view<f32, [N, F], in>[!pgpu.fragment<index, [TILE_M, TILE_N]>, !pgpu.fragment<index, [TILE_M, TILE_N]>] -> !pgpu.fragment<f32, [TILE_M, TILE_N]>
// CHECK: %[[NAN:.*]] = pgpu.cmp ne %[[X]], %[[X]] : !pgpu.fragment<f32, [TILE_M, TILE_N]>
// CHECK: %[[ID:.*]] = pgpu.splat %{{.*}} : i32 -> !pgpu.fragment<i32, [TILE_M, TILE_N]>
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[BINS:.*]] = pgpu.for %{{.*}} to %{{.*}} step %[[ONE]] iter_args(%[[ID]] : !pgpu.fragment<i32, [TILE_M, TILE_N]>) -> !pgpu.fragment<i32, [TILE_M, TILE_N]> {
// CHECK-NEXT: ^bb0(%[[C:.*]]: index, %[[ACC:.*]]: !pgpu.fragment<i32, [TILE_M, TILE_N]>):
// CHECK-NOT: pgpu.load %x
// CHECK: %[[CUT:.*]] = pgpu.load %cuts[%{{.*}}, %[[C]]] valid %{{.*}} : !pgpu.fragment<i1, [TILE_N]> fill %{{.*}} : f32 : !pgpu.view<f32, [F, NB], in>[!pgpu.fragment<index, [TILE_N]>, index] -> !pgpu.fragment<f32, [TILE_N]>
// CHECK: %[[CUTS:.*]] = pgpu.broadcast %[[CUT]] dims [1] : !pgpu.fragment<f32, [TILE_N]> -> !pgpu.fragment<f32, [TILE_M, TILE_N]>
// CHECK: %[[LE:.*]] = pgpu.cmp le %[[CUTS]], %[[X]] : !pgpu.fragment<f32, [TILE_M, TILE_N]>
// CHECK: %[[PAST:.*]] = pgpu.binary or %[[LE]], %[[NAN]] : !pgpu.fragment<i1, [TILE_M, TILE_N]>
// CHECK: %[[TERM:.*]] = pgpu.cast %[[PAST]] : !pgpu.fragment<i1, [TILE_M, TILE_N]> to !pgpu.fragment<i32, [TILE_M, TILE_N]>
// CHECK-NOT: pgpu.reduce
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[ACC]], %[[TERM]] : !pgpu.fragment<i32, [TILE_M, TILE_N]>
// CHECK: pgpu.yield %[[NEXT]] : !pgpu.fragment<i32, [TILE_M, TILE_N]>
// CHECK: pgpu.store %[[BINS]], %bins[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_M, TILE_N]> : !pgpu.fragment<i32, [TILE_M, TILE_N]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @bucketize(%x: !pgpu.view<f32, [N, F], in>, %cuts: !pgpu.view<f32, [F, NB], in>, %bins: !pgpu.view<i32, [N, F], out>) {
    %cst = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %c0_i32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, F], in>
    %F = pgpu.extent %x[1] : !pgpu.view<f32, [N, F], in>
    %NB = pgpu.extent %cuts[1] : !pgpu.view<f32, [F, NB], in>
    %all = pgpu.binary mul %N, %F : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N, %F) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %f: index):
        %s = pgpu.range_reduce %c0 to %NB identity(%c0_i32 : i32) -> (i32) element {
        ^bb0(%c: index):
          %cut = pgpu.load %cuts[%f, %c] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [F, NB], in>[index, index] -> f32
          %v = pgpu.load %x[%n, %f] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, F], in>[index, index] -> f32
          %le = pgpu.cmp le %cut, %v : f32
          %nan = pgpu.cmp ne %v, %v : f32
          %past = pgpu.binary or %le, %nan : i1
          %one = pgpu.cast %past : i1 to i32
          pgpu.yield %one : i32
        } combine {
        ^bb0(%a: i32, %b: i32):
          %sum = pgpu.binary add %a, %b : i32
          pgpu.yield %sum : i32
        }
        pgpu.store %s, %bins[%n, %f] valid %true : i1 : i32, !pgpu.view<i32, [N, F], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a dot product's walked read x[n, c] depends on the outer axis (each member reads
// COM: its own row; nothing is shared across n).
// CHECK-LABEL: pgpu.kernel @rowdot
// CHECK-NOT: TILE_M
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowdot(%x: !pgpu.view<f32, [N, K], in>, %w: !pgpu.view<f32, [F, K], in>, %y: !pgpu.view<f32, [N, F], out>) {
    %cst = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<f32, [N, K], in>
    %F = pgpu.extent %w[0] : !pgpu.view<f32, [F, K], in>
    %all = pgpu.binary mul %N, %F : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N, %F) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %f: index):
        %s = pgpu.range_reduce %c0 to %K identity(%cst : f32) -> (f32) element {
        ^bb0(%k: index):
          %a = pgpu.load %x[%n, %k] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, K], in>[index, index] -> f32
          %b = pgpu.load %w[%f, %k] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [F, K], in>[index, index] -> f32
          %m = pgpu.binary mul %a, %b : f32
          pgpu.yield %m : f32
        } combine {
        ^bb0(%u: f32, %v: f32):
          %sum = pgpu.binary add %u, %v : f32
          pgpu.yield %sum : f32
        }
        pgpu.store %s, %y[%n, %f] valid %true : i1 : f32, !pgpu.view<f32, [N, F], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the terms do not depend on the outer axis (a row sum of the table per member f,
// COM: the same for every n: nothing per member to walk the shared row for).
// CHECK-LABEL: pgpu.kernel @tablesum
// CHECK-NOT: TILE_M
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @tablesum(%t: !pgpu.view<f32, [F, K], in>, %y: !pgpu.view<f32, [N, F], out>) {
    %cst = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %y[0] : !pgpu.view<f32, [N, F], out>
    %F = pgpu.extent %t[0] : !pgpu.view<f32, [F, K], in>
    %K = pgpu.extent %t[1] : !pgpu.view<f32, [F, K], in>
    %all = pgpu.binary mul %N, %F : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N, %F) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %f: index):
        %s = pgpu.range_reduce %c0 to %K identity(%cst : f32) -> (f32) element {
        ^bb0(%k: index):
          %b = pgpu.load %t[%f, %k] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [F, K], in>[index, index] -> f32
          pgpu.yield %b : f32
        } combine {
        ^bb0(%u: f32, %v: f32):
          %sum = pgpu.binary add %u, %v : f32
          pgpu.yield %sum : f32
        }
        pgpu.store %s, %y[%n, %f] valid %true : i1 : f32, !pgpu.view<f32, [N, F], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the reduction's bound is read per member (a ragged row length lens[f]): the
// COM: members of a tile would not walk one range together.
// CHECK-LABEL: pgpu.kernel @ragged
// CHECK-NOT: TILE_M
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @ragged(%x: !pgpu.view<f32, [N, F], in>, %cuts: !pgpu.view<f32, [F, NB], in>, %lens: !pgpu.view<index, [F], in>, %bins: !pgpu.view<i32, [N, F], out>) {
    %cst = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %c0_i32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, F], in>
    %F = pgpu.extent %x[1] : !pgpu.view<f32, [N, F], in>
    %all = pgpu.binary mul %N, %F : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N, %F) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %f: index):
        %len = pgpu.load %lens[%f] valid %true : i1 fill %c0 : index : !pgpu.view<index, [F], in>[index] -> index
        %s = pgpu.range_reduce %c0 to %len identity(%c0_i32 : i32) -> (i32) element {
        ^bb0(%c: index):
          %cut = pgpu.load %cuts[%f, %c] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [F, NB], in>[index, index] -> f32
          %v = pgpu.load %x[%n, %f] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, F], in>[index, index] -> f32
          %le = pgpu.cmp le %cut, %v : f32
          %one = pgpu.cast %le : i1 to i32
          pgpu.yield %one : i32
        } combine {
        ^bb0(%a: i32, %b: i32):
          %sum = pgpu.binary add %a, %b : i32
          pgpu.yield %sum : i32
        }
        pgpu.store %s, %bins[%n, %f] valid %true : i1 : i32, !pgpu.view<i32, [N, F], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
