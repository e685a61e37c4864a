// RUN: tessel-opt %s -split-input-file -pgpu-pack-rows | FileCheck %s

// COM: 278_quantile_bin_features: bins[n, f] counts the cut points cuts[f, :] at most x[n, f]. The row
// COM: (the count over the NB cut points) of member (n, f) reads cuts[f, :], which depends on the inner
// COM: coordinate f and not on n: the row-major order (ROWS consecutive f of one n) reads ROWS rows of cut
// COM: points a program. Rows along n share them (256 bytes a row at BLOCK's narrowest candidate, 64)
// COM: against 2 x 28 sector bytes the per-row x[n, f] and bins[n, f] lose: a program owns ROWS
// COM: consecutive n at one f (f = program mod F, innermost, so programs of adjacent f run together),
// COM: reads the cut points as one [BLOCK] fragment and x as a [ROWS] fragment along n.
// CHECK-LABEL: pgpu.kernel @count_cuts_at_most
// CHECK-SAME: #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>
// CHECK: %[[ROWS:.*]] = pgpu.param "ROWS" : index
// CHECK: %[[BLOCKS:.*]] = pgpu.ceil_div %[[N:.*]], %[[ROWS]] : index
// CHECK: %[[PROGRAMS:.*]] = pgpu.binary mul %[[BLOCKS]], %[[F:.*]] : index
// CHECK: pgpu.program_space(%[[PROGRAMS]])
// CHECK: pgpu.execution_group %{{.*}} extents(%[[PROGRAMS]]) segment 0 roles ["axis0*axis1"] {
// CHECK: ^bb0(%[[P:.*]]: index):
// CHECK: %[[B:.*]] = pgpu.binary div %[[P]], %[[F]] : index
// CHECK: %[[FEATURE:.*]] = pgpu.binary rem %[[P]], %[[F]] : index
// CHECK: %[[FIRST:.*]] = pgpu.binary mul %[[B]], %[[ROWS]] : index
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[MEMBER:.*]] = pgpu.iota %[[FIRST]] : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[NS:.*]] = pgpu.splat %[[N]] : index -> !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LIVE:.*]] = pgpu.cmp lt %[[MEMBER]], %[[NS]] : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[CUTS:.*]] = pgpu.load %cuts[%[[FEATURE]], %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]> {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[FS:.*]] = pgpu.splat %[[FEATURE]] : index -> !pgpu.fragment<index, [ROWS]>
// CHECK: %[[V:.*]] = pgpu.load %x[%[[MEMBER]], %[[FS]]] valid %{{.*}} -> !pgpu.fragment<f32, [ROWS]>
// CHECK: pgpu.broadcast %[[CUTS]] dims [1] : !pgpu.fragment<f32, [BLOCK]> -> !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: pgpu.reduce %{{.*}} axes [1] {{.*}} -> (!pgpu.fragment<i32, [ROWS]>)
// CHECK: pgpu.store %{{.*}}, %bins[%[[MEMBER]], %[[FS]]] valid %{{.*}} : !pgpu.fragment<i1, [ROWS]>
// CHECK: } else {
// CHECK: %[[END:.*]] = pgpu.binary add %[[FIRST]], %[[ROWS]] : index
// CHECK: %[[LAST:.*]] = pgpu.binary min %[[END]], %[[N]] : index
// CHECK: pgpu.for %[[FIRST]] to %[[LAST]] step %{{.*}} {
// CHECK: ^bb0(%[[ROW:.*]]: index):
// CHECK: pgpu.load %cuts[%[[FEATURE]], %{{.*}}]
// CHECK: pgpu.load %x[%[[ROW]], %[[FEATURE]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @count_cuts_at_most(%x: !pgpu.view<f32, [N, F], in>, %cuts: !pgpu.view<f32, [F, NB], in>, %bins: !pgpu.view<i32, [N, F], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512], 512, covers = "NB">]} {
    %z = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0_i32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, F], in>
    %F = pgpu.extent %x[1] : !pgpu.view<f32, [N, F], in>
    %NB = pgpu.extent %cuts[1] : !pgpu.view<f32, [F, NB], in>
    %members = pgpu.binary mul %N, %F : index
    pgpu.program_space(%members) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%N, %F) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %f: index):
        %block = pgpu.param "BLOCK" : index
        %count = pgpu.for %c0 to %NB step %block iter_args(%c0_i32 : i32) -> i32 {
        ^bb0(%b: index, %acc: i32):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %NB : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %c = pgpu.load %cuts[%f, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [F, NB], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %v = pgpu.load %x[%n, %f] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [N, F], in>[index, index] -> f32
          %vs = pgpu.splat %v : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %le = pgpu.cmp le %c, %vs : !pgpu.fragment<f32, [BLOCK]>
          %ones = pgpu.cast %le : !pgpu.fragment<i1, [BLOCK]> to !pgpu.fragment<i32, [BLOCK]>
          %zs = pgpu.splat %c0_i32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
          %live = pgpu.select %ok, %ones, %zs : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<i32, [BLOCK]>
          %s = pgpu.reduce %live axes [0] identity(%c0_i32 : i32) : (!pgpu.fragment<i32, [BLOCK]>) -> (i32) {
          ^bb0(%l: i32, %r: i32):
            %a = pgpu.binary add %l, %r : i32
            pgpu.yield %a : i32
          }
          %next = pgpu.binary add %acc, %s : i32
          pgpu.yield %next : i32
        }
        pgpu.store %count, %bins[%n, %f] valid %true : i1 : i32, !pgpu.view<i32, [N, F], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not take rows along n: the read that does not depend on n is a scalar, w[f] (4 bytes a row),
// COM: while the per-row out[n, f] would lose 28 sector bytes along n; the row x[n, f, :] depends on
// COM: both. The row-major order stays (ROWS consecutive members, their coordinates decoded by F).
// CHECK-LABEL: pgpu.kernel @scaled_row_sums
// CHECK: %[[ROWS:.*]] = pgpu.param "ROWS" : index
// CHECK: %[[MEMBERS:.*]] = pgpu.binary mul %{{.*}}, %[[F:.*]] : index
// CHECK: %[[PROGRAMS:.*]] = pgpu.ceil_div %[[MEMBERS]], %[[ROWS]] : index
// CHECK: pgpu.program_space(%[[PROGRAMS]])
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[MEMBER:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[FS:.*]] = pgpu.splat %[[F]] : index -> !pgpu.fragment<index, [ROWS]>
// CHECK: %[[FEATURE:.*]] = pgpu.binary rem %[[MEMBER]], %[[FS]] : !pgpu.fragment<index, [ROWS]>
// CHECK: pgpu.load %w[%[[FEATURE]]] {{.*}} -> !pgpu.fragment<f32, [ROWS]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scaled_row_sums(%x: !pgpu.view<f32, [N, F, D], in>, %w: !pgpu.view<f32, [F], in>, %out: !pgpu.view<f32, [N, F], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512], 512, covers = "D">]} {
    %z = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, F, D], in>
    %F = pgpu.extent %x[1] : !pgpu.view<f32, [N, F, D], in>
    %D = pgpu.extent %x[2] : !pgpu.view<f32, [N, F, D], in>
    %members = pgpu.binary mul %N, %F : index
    pgpu.program_space(%members) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%N, %F) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %f: index):
        %block = pgpu.param "BLOCK" : index
        %sum = pgpu.for %c0 to %D step %block iter_args(%z : f32) -> f32 {
        ^bb0(%b: index, %acc: f32):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %D : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%n, %f, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N, F, D], in>[index, index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %s = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %next = pgpu.binary add %acc, %s : f32
          pgpu.yield %next : f32
        }
        %scale = pgpu.load %w[%f] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [F], in>[index] -> f32
        %r = pgpu.binary mul %sum, %scale : f32
        pgpu.store %r, %out[%n, %f] valid %true : i1 : f32, !pgpu.view<f32, [N, F], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
