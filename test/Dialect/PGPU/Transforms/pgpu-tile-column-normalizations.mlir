// RUN: tessel-opt %s -split-input-file -pgpu-tile-column-reductions | FileCheck %s

// COM: A column normalization (softmax over the first axis, one column per program after
// COM: pgpu-flatten-worksets): the body reduces the column twice (max, then the sum of exp(x - max)) and
// COM: walks it again to write it (a nested workset over the rows). The programs own blocks of BLOCK_C
// COM: columns; each reduction is a loop over [BLOCK_R, BLOCK_C] tiles reduced along BLOCK_R after it, and
// COM: the write is a loop over [BLOCK_R, BLOCK_C] tiles whose reads and store are valid on the lanes of
// COM: both axes (rows of BLOCK_C contiguous elements instead of one element per row). The body walks the
// COM: rows again after its reductions, so they stay loops (no region fold that pgpu-split-folds would
// COM: cut, leaving the write pass to the last arrival).
// CHECK-LABEL: pgpu.kernel @softmax_columns
// CHECK-SAME: #pgpu.param<"BLOCK_C", [16, 32, 64, 128, 256, 512, 1024], 128>
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128], 16, covers = "M">
// CHECK-NOT: pgpu.region_fold
// CHECK: %[[BC:.*]] = pgpu.param "BLOCK_C" : index
// CHECK: %[[BLOCKS:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[BLOCKS]]) segment 0
// CHECK-NEXT: ^bb0(%[[COL:.*]]: index):
// CHECK: %[[COLS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[COLSOK:.*]] = pgpu.cmp lt %[[COLS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[BR:.*]] = pgpu.param "BLOCK_R" : index
// CHECK: %[[MAXT:.*]] = pgpu.for %{{.*}} to %[[M:.*]] step %[[BR]] iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: pgpu.binary max %{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[MAX:.*]] = pgpu.reduce %[[MAXT]] axes [0] {{.*}} -> (!pgpu.fragment<f32, [BLOCK_C]>)
// CHECK: %[[SUMT:.*]] = pgpu.for %{{.*}} to %[[M]] step %{{.*}} iter_args
// CHECK: pgpu.broadcast %[[MAX]] dims [1] : !pgpu.fragment<f32, [BLOCK_C]> -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.unary exp
// CHECK: %[[SUM:.*]] = pgpu.reduce %[[SUMT]] axes [0] {{.*}} -> (!pgpu.fragment<f32, [BLOCK_C]>)
// CHECK: pgpu.for %{{.*}} to %[[M]] step %{{.*}} {
// CHECK-NEXT: ^bb0(%[[R0:.*]]: index):
// CHECK: %[[ROWS:.*]] = pgpu.iota %[[R0]] : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[ROWSOK:.*]] = pgpu.cmp lt %[[ROWS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[R2:.*]] = pgpu.broadcast %[[ROWS]] dims [0] : !pgpu.fragment<index, [BLOCK_R]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: %[[C2:.*]] = pgpu.broadcast %[[COLS]] dims [1] : !pgpu.fragment<index, [BLOCK_C]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: %[[ROK2:.*]] = pgpu.broadcast %[[ROWSOK]] dims [0]
// CHECK: %[[COK2:.*]] = pgpu.broadcast %[[COLSOK]] dims [1]
// CHECK: %[[OK:.*]] = pgpu.binary and %[[ROK2]], %[[COK2]] : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.load %x[%[[R2]], %[[C2]]] valid %[[OK]] {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.broadcast %[[SUM]] dims [1]
// CHECK: %[[Y:.*]] = pgpu.binary div %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// COM: The store's coordinates and validity are built again from the same lanes (CSE merges them).
// CHECK: pgpu.store %[[Y]], %y[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>]
// CHECK-NOT: pgpu.foreach
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @softmax_columns(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %ninf = arith.constant 0xFF800000 : f32
        %t = arith.constant true
        %mx = pgpu.range_reduce %c0 to %M identity(%ninf : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary max %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        %s = pgpu.range_reduce %c0 to %M identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %d = pgpu.binary sub %v, %mx : f32
          %e = pgpu.unary exp %d : f32
          pgpu.yield %e : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.foreach %c0 to %M {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %d = pgpu.binary sub %v, %mx : f32
          %e = pgpu.unary exp %d : f32
          %q = pgpu.binary div %e, %s : f32
          pgpu.store %q, %y[%r, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A column walk without a reduction (each column scaled by its own factor, one column per
// COM: program): the nested workset's read and write walk the kept axis contiguously, so the programs
// COM: own blocks of BLOCK_C columns and the rows are walked in [BLOCK_R, BLOCK_C] tiles. The factor is
// COM: read once per block ([BLOCK_C]) and broadcast along the rows.
// CHECK-LABEL: pgpu.kernel @scale_columns
// CHECK: %[[COLS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[W:.*]] = pgpu.load %w[%[[COLS]]] {{.*}} -> !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: pgpu.for
// CHECK: %[[V:.*]] = pgpu.load %x[{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[WB:.*]] = pgpu.broadcast %[[W]] dims [1]
// CHECK: %[[P:.*]] = pgpu.binary mul %[[V]], %[[WB]] : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.store %[[P]], %y[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scale_columns(%x: !pgpu.view<f32, [M, N], in>, %w: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %f = pgpu.load %w[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.foreach %c0 to %M {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %q = pgpu.binary mul %v, %f : f32
          pgpu.store %q, %y[%r, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a row normalization (each program normalizes row n, whose elements are
// COM: contiguous: x[n, r]); one axis of lanes over r is already coalesced (pgpu-form-blocking's).
// CHECK-LABEL: pgpu.kernel @softmax_rows
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_reduce
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @softmax_rows(%x: !pgpu.view<f32, [N, M], in>, %y: !pgpu.view<f32, [N, M], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [N, M], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %s = pgpu.range_reduce %c0 to %M identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%n, %r] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.foreach %c0 to %M {
        ^bb0(%r: index):
          %v = pgpu.load %x[%n, %r] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
          %q = pgpu.binary div %v, %s : f32
          pgpu.store %q, %y[%n, %r] valid %t : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the nested workset writes an element that does not depend on its member (every
// COM: row lane would write y[n]); the column reduction beside it is not enough.
// CHECK-LABEL: pgpu.kernel @repeated_write
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_reduce
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @repeated_write(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %s = pgpu.range_reduce %c0 to %M identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.foreach %c0 to %M {
        ^bb0(%r: index):
          pgpu.store %s, %y[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the nested workset's bound depends on the kept axis (a triangle r < n): its
// COM: lanes would have different trip counts.
// CHECK-LABEL: pgpu.kernel @triangle_write
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @triangle_write(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %hi = pgpu.binary min %n, %M : index
        pgpu.foreach %c0 to %hi {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.store %v, %y[%r, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Without the scans option (a provider that spells no scan along an axis of a 2-d fragment) a
// COM: cumulative sum down the columns is left alone.
// CHECK-LABEL: pgpu.kernel @cumsum_columns
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @cumsum_columns(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%z : f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        } emit {
        ^bb0(%r: index, %s: f32):
          pgpu.store %s, %y[%r, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
