// RUN: tessel-opt %s -split-input-file -pgpu-pack-rows | FileCheck %s

// COM: A row reduced over members that each walk the row (the least over 16 centroids of the row's squared
// COM: distance to each, 171_kmeans_assign's shape): the reduction over the members runs in member order
// COM: as a loop carrying [ROWS] fragments, each member's walk of the row (0 < D <= BLOCK) its one block of
// COM: [ROWS, BLOCK] lanes, and the row tile, the same for every member, is read once before the loop.
// CHECK-LABEL: pgpu.kernel @nearest
// CHECK-SAME: #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>
// CHECK: pgpu.execution_group
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[ROW:.*]] = pgpu.load %x[{{.*}}] {{.*}} -> !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: %[[BEST:.*]] = pgpu.for %c0 to %c16 step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [ROWS]>) -> !pgpu.fragment<f32, [ROWS]> {
// CHECK: ^bb0(%[[J:.*]]: index, %[[ACC:.*]]: !pgpu.fragment<f32, [ROWS]>):
// CHECK-NOT: pgpu.load %x
// CHECK: %[[C:.*]] = pgpu.load %c[%[[J]], {{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[CB:.*]] = pgpu.broadcast %[[C]] dims [1] : !pgpu.fragment<f32, [BLOCK]> -> !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: pgpu.binary sub %[[CB]], %[[ROW]] : !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: pgpu.reduce %{{.*}} axes [1] {{.*}} -> (!pgpu.fragment<f32, [ROWS]>)
// CHECK: %[[M:.*]] = pgpu.binary min %[[ACC]], %{{.*}} : !pgpu.fragment<f32, [ROWS]>
// CHECK: pgpu.yield %[[M]] : !pgpu.fragment<f32, [ROWS]>
// CHECK: pgpu.store %[[BEST]], %y[{{.*}}] {{.*}} : !pgpu.fragment<f32, [ROWS]>
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: pgpu.for %c0 to %c16
// CHECK: pgpu.for %c0 to %[[D:.*]] step
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @nearest(%x: !pgpu.view<f32, [N, D], in>, %c: !pgpu.view<f32, [16, D], in>, %y: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 64, covers = "D">]} {
    %true = arith.constant true
    %inf = arith.constant 0x7F800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %n = pgpu.extent %x[0] : !pgpu.view<f32, [N, D], in>
    %d = pgpu.extent %x[1] : !pgpu.view<f32, [N, D], in>
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%n) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        %best = pgpu.range_reduce %c0 to %c16 identity(%inf : f32) -> (f32) element {
        ^bb0(%j: index):
          %block = pgpu.param "BLOCK" : index
          %sum = pgpu.for %c0 to %d step %block iter_args(%zero : f32) -> f32 {
          ^bb0(%b: index, %acc: f32):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ds = pgpu.splat %d : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ds : !pgpu.fragment<index, [BLOCK]>
            %cv = pgpu.load %c[%j, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [16, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %xv = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [N, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %diff = pgpu.binary sub %cv, %xv : !pgpu.fragment<f32, [BLOCK]>
            %sq = pgpu.binary mul %diff, %diff : !pgpu.fragment<f32, [BLOCK]>
            %part = pgpu.reduce %sq axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %r: f32):
              %s = pgpu.binary add %l, %r : f32
              pgpu.yield %s : f32
            }
            %next = pgpu.binary add %acc, %part : f32
            pgpu.yield %next : f32
          }
          pgpu.yield %sum : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %m = pgpu.binary min %l, %r : f32
          pgpu.yield %m : f32
        }
        pgpu.store %best, %y[%row] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the members' range depends on the row (members 0..row): no ordered loop the rows
// COM: share. One row a program is kept.
// CHECK-LABEL: pgpu.kernel @ragged_members
// CHECK-NOT: "ROWS"
// CHECK: pgpu.range_reduce %c0 to %{{.*}} identity
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @ragged_members(%x: !pgpu.view<f32, [N, D], in>, %c: !pgpu.view<f32, [16, D], in>, %y: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 64, covers = "D">]} {
    %true = arith.constant true
    %inf = arith.constant 0x7F800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %n = pgpu.extent %x[0] : !pgpu.view<f32, [N, D], in>
    %d = pgpu.extent %x[1] : !pgpu.view<f32, [N, D], in>
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%n) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        %hi = pgpu.binary min %row, %c16 : index
        %best = pgpu.range_reduce %c0 to %hi identity(%inf : f32) -> (f32) element {
        ^bb0(%j: index):
          %block = pgpu.param "BLOCK" : index
          %sum = pgpu.for %c0 to %d step %block iter_args(%zero : f32) -> f32 {
          ^bb0(%b: index, %acc: f32):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ds = pgpu.splat %d : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ds : !pgpu.fragment<index, [BLOCK]>
            %cv = pgpu.load %c[%j, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [16, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %xv = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [N, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %diff = pgpu.binary sub %cv, %xv : !pgpu.fragment<f32, [BLOCK]>
            %sq = pgpu.binary mul %diff, %diff : !pgpu.fragment<f32, [BLOCK]>
            %part = pgpu.reduce %sq axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %r: f32):
              %s = pgpu.binary add %l, %r : f32
              pgpu.yield %s : f32
            }
            %next = pgpu.binary add %acc, %part : f32
            pgpu.yield %next : f32
          }
          pgpu.yield %sum : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %m = pgpu.binary min %l, %r : f32
          pgpu.yield %m : f32
        }
        pgpu.store %best, %y[%row] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
