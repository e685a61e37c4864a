// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: A pairwise map (corpus 214's box IoU, here with two coordinates a box): out[i, j] =
// COM: min(a[i, 1], b[j, 1]) - max(a[i, 0], b[j, 0]). Construction reads a's row before the walk of
// COM: j (a prologue of reads, which alone would make it a segment); every read depends on one of
// COM: i and j, the store on both. Blocking both as [TILE_0, TILE_1] tiles reads TILE_0 + TILE_1
// COM: boxes for TILE_0 x TILE_1 results, where the one-axis walk of j reads all of b again for every
// COM: row i. Before this the nest was refused ("no contraction: a loop after per-row reads ...").
// CHECK-LABEL: pgpu.kernel @pairwise
// CHECK-SAME: #pgpu.param<"TILE_0", [1, 2, 4, 8, 16, 32], 8>
// CHECK-SAME: #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 64, covers = "M">
// CHECK-NOT: GROUP_
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["axis0", "axis1"]
// CHECK: %[[A0:.*]] = pgpu.load %a[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0]> {{.*}} -> !pgpu.fragment<f32, [TILE_0]>
// CHECK: %[[B0:.*]] = pgpu.load %b[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1]> {{.*}} -> !pgpu.fragment<f32, [TILE_1]>
// CHECK: pgpu.broadcast %[[B0]] {{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.store %{{.*}}, %out[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @pairwise(%a: !pgpu.view<f32, [N, 2], in>, %b: !pgpu.view<f32, [M, 2], in>, %out: !pgpu.view<f32, [N, M], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f32, [N, 2], in>
    %1 = pgpu.extent %b[0] : !pgpu.view<f32, [M, 2], in>
    pgpu.program_space(%0) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled for contiguous accesses: TILE_0 (program axis 0), TILE_1 (program axis 1); a pairwise map: each row's and each column's reads serve a whole tile}}
      pgpu.execution_group %arg0 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%i: index):
        %a0 = pgpu.load %a[%i, %c0] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, 2], in>[index, index] -> f32
        %a1 = pgpu.load %a[%i, %c1] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, 2], in>[index, index] -> f32
        pgpu.foreach %c0 to %1 {
        ^bb0(%j: index):
          %b0 = pgpu.load %b[%j, %c0] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [M, 2], in>[index, index] -> f32
          %b1 = pgpu.load %b[%j, %c1] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [M, 2], in>[index, index] -> f32
          %hi = pgpu.binary min %b1, %a1 : f32
          %lo = pgpu.binary max %b0, %a0 : f32
          %d = pgpu.binary sub %hi, %lo : f32
          pgpu.store %d, %out[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a per-row scale of an [N, M] map (out[i, j] = x[i, j] * s[i]): x depends on
// COM: both axes, so a tile reuses nothing of it; the row walk streams its rows at bandwidth already
// COM: (pgpu-form-blocking blocks it along j).
// CHECK-LABEL: pgpu.kernel @row_scale
// CHECK-NOT: TILE_
// CHECK: pgpu.foreach
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_scale(%x: !pgpu.view<f32, [N, M], in>, %s: !pgpu.view<f32, [N], in>, %out: !pgpu.view<f32, [N, M], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [N, M], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [N, M], in>
    pgpu.program_space(%0) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction: a loop after per-row reads or reductions (a row statistic, then the row) is blocked along the row by pgpu-form-blocking}}
      pgpu.execution_group %arg0 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%i: index):
        %si = pgpu.load %s[%i] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.foreach %c0 to %1 {
        ^bb0(%j: index):
          %v = pgpu.load %x[%i, %j] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
          %p = pgpu.binary mul %v, %si : f32
          pgpu.store %p, %out[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a row statistic before the walk (a read-only reduction in the prologue, as a
// COM: softmax's row maximum): the row is blocked by pgpu-form-blocking.
// CHECK-LABEL: pgpu.kernel @row_statistic
// CHECK-NOT: TILE_
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_statistic(%a: !pgpu.view<f32, [N, K], in>, %b: !pgpu.view<f32, [M], in>, %out: !pgpu.view<f32, [N, M], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f32, [N, K], in>
    %k = pgpu.extent %a[1] : !pgpu.view<f32, [N, K], in>
    %1 = pgpu.extent %b[0] : !pgpu.view<f32, [M], in>
    pgpu.program_space(%0) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction: a loop after per-row reads or reductions (a row statistic, then the row) is blocked along the row by pgpu-form-blocking}}
      pgpu.execution_group %arg0 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%i: index):
        %sum = pgpu.range_reduce %c0 to %k identity(%cst : f32) -> (f32) element {
        ^bb0(%kk: index):
          %v = pgpu.load %a[%i, %kk] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, K], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %t = pgpu.binary add %l, %r : f32
          pgpu.yield %t : f32
        }
        pgpu.foreach %c0 to %1 {
        ^bb0(%j: index):
          %bj = pgpu.load %b[%j] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [M], in>[index] -> f32
          %p = pgpu.binary sub %bj, %sum : f32
          pgpu.store %p, %out[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the row's read before the walk is of the view the walk writes (y[i, 0], then
// COM: y[i, j] for every j): another column tile's program could write y[i, 0] before this one reads
// COM: it, where the one program of row i read it first.
// CHECK-LABEL: pgpu.kernel @reads_written
// CHECK-NOT: TILE_
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @reads_written(%b: !pgpu.view<f32, [M], in>, %y: !pgpu.view<f32, [N, M], inout>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %y[0] : !pgpu.view<f32, [N, M], inout>
    %1 = pgpu.extent %b[0] : !pgpu.view<f32, [M], in>
    pgpu.program_space(%0) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction: a loop after per-row reads or reductions (a row statistic, then the row) is blocked along the row by pgpu-form-blocking}}
      pgpu.execution_group %arg0 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%i: index):
        %y0 = pgpu.load %y[%i, %c0] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, M], inout>[index, index] -> f32
        pgpu.foreach %c0 to %1 {
        ^bb0(%j: index):
          %bj = pgpu.load %b[%j] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [M], in>[index] -> f32
          %p = pgpu.binary sub %bj, %y0 : f32
          pgpu.store %p, %y[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [N, M], inout>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
