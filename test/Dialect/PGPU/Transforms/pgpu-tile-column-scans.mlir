// RUN: tessel-opt %s -split-input-file -pgpu-tile-column-reductions="scans=true" | FileCheck %s

// COM: A cumulative sum down the columns (one column per program after pgpu-flatten-worksets): the
// COM: programs own blocks of BLOCK_C columns and walk the rows in order, BLOCK_R at a time, carrying
// COM: one running sum per column ([BLOCK_C], the identity first). Each trip scans its [BLOCK_R, BLOCK_C]
// COM: tile along BLOCK_R (invalid rows the identity), adds the carry on the left of every prefix,
// COM: stores the tile and carries its last row on (a pick of lane BLOCK_R - 1 along BLOCK_R).
// CHECK-LABEL: pgpu.kernel @cumsum_columns
// CHECK-SAME: #pgpu.param<"BLOCK_C", [16, 32, 64, 128, 256, 512, 1024], 128>
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128], 16, covers = "M">
// CHECK: %[[COLS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[ID:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: %[[BR:.*]] = pgpu.param "BLOCK_R" : index
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %[[BR]] iter_args(%[[ID]] : !pgpu.fragment<f32, [BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_C]> {
// CHECK-NEXT: ^bb0(%[[R0:.*]]: index, %[[CARRY:.*]]: !pgpu.fragment<f32, [BLOCK_C]>):
// CHECK: %[[ROWS:.*]] = pgpu.iota %[[R0]] : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[V:.*]] = pgpu.load %x[{{.*}}] valid %{{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[M:.*]] = pgpu.select %{{.*}}, %[[V]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[P:.*]] = pgpu.scan %[[M]] axis 0 identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: %[[CB:.*]] = pgpu.broadcast %[[CARRY]] dims [1] : !pgpu.fragment<f32, [BLOCK_C]> -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[S:.*]] = pgpu.binary add %[[CB]], %[[P]] : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.store %[[S]], %y[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>
// CHECK: %[[LASTI:.*]] = pgpu.binary sub %{{.*}}, %{{.*}} : index
// CHECK: %[[AT:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: pgpu.cmp eq %[[AT]], %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[LAST:.*]]:2 = pgpu.reduce %[[S]], %{{.*}} axes [0] identity(%{{.*}}, %{{.*}} : f32, index) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_C]>, !pgpu.fragment<index, [BLOCK_C]>)
// CHECK: pgpu.select
// CHECK: pgpu.binary max
// CHECK: pgpu.yield %[[LAST]]#0 : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK-NOT: pgpu.range_scan
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

// -----

// COM: Must not fire: a reverse scan (only inclusive forward scans are tiled yet).
// CHECK-LABEL: pgpu.kernel @reverse_cumsum
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @reverse_cumsum(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%z : f32) reverse element {
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

// -----

// COM: Must not fire: a scan along the rows' contiguous axis (a row cumsum, x[n, r]); one axis of
// COM: lanes over r is already coalesced (pgpu-form-blocking's blocked scan).
// CHECK-LABEL: pgpu.kernel @cumsum_rows
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @cumsum_rows(%x: !pgpu.view<f32, [N, M], in>, %y: !pgpu.view<f32, [N, M], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [N, M], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%z : f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%n, %r] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        } emit {
        ^bb0(%r: index, %s: f32):
          pgpu.store %s, %y[%n, %r] valid %t : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
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

// COM: Must not fire: a scan of two components (affine maps h -> a h + b down the columns, an EMA):
// COM: each component would keep two [BLOCK_R, BLOCK_C] tiles live.
// CHECK-LABEL: pgpu.kernel @ema_columns
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @ema_columns(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %one = arith.constant 1.0 : f32
        %half = arith.constant 0.5 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%one, %z : f32, f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %w = pgpu.binary mul %v, %half : f32
          pgpu.yield %half, %w : f32, f32
        } combine {
        ^bb0(%a1: f32, %b1: f32, %a2: f32, %b2: f32):
          %a = pgpu.binary mul %a1, %a2 : f32
          %m = pgpu.binary mul %a2, %b1 : f32
          %b = pgpu.binary add %m, %b2 : f32
          pgpu.yield %a, %b : f32, f32
        } emit {
        ^bb0(%r: index, %a: f32, %h: f32):
          pgpu.store %h, %y[%r, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
