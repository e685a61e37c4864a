// RUN: tessel-opt %s -split-input-file -pgpu-pack-rows | FileCheck %s

// COM: A staged row path that reduces its row (x / sum(x) when 0 < N <= BLOCK; the blocked loops
// COM: otherwise): each program takes ROWS rows. The staged path's row values gain a leading ROWS
// COM: axis (the row's [BLOCK] load becomes [ROWS, BLOCK], the per-row sum a [ROWS] fragment that
// COM: broadcasts along the columns), the reduction reduces axis 1, the column iota stays [BLOCK], and
// COM: reads and writes are masked to rows below M; the blocked path runs the rows in a loop.
// COM: ROWS declares 1 (one row a program, as without the packing): a binding that knows no row
// COM: length (a launch without params, the wrapper's defaults) must not run 8 long rows of the
// COM: blocked path one after the other; a call's default packs short rows (_kernel.py `_rows`).
// CHECK-LABEL: pgpu.kernel @normalize_rows
// CHECK-SAME: #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>
// CHECK: %[[ROWS:.*]] = pgpu.param "ROWS" : index
// CHECK: %[[PROGRAMS:.*]] = pgpu.ceil_div %[[M:.*]], %[[ROWS]] : index
// CHECK: pgpu.program_space(%[[PROGRAMS]])
// CHECK: pgpu.execution_group %{{.*}} extents(%[[PROGRAMS]]) segment 0 roles ["axis0"] {
// CHECK: ^bb0(%[[P:.*]]: index):
// CHECK: %[[FIRST:.*]] = pgpu.binary mul %[[P]], %[[ROWS]] : index
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[MEMBER:.*]] = pgpu.iota %[[FIRST]] : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[MS:.*]] = pgpu.splat %[[M]] : index -> !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LIVE:.*]] = pgpu.cmp lt %[[MEMBER]], %[[MS]] : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LANES:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[R2:.*]] = pgpu.broadcast %[[MEMBER]] dims [0] : !pgpu.fragment<index, [ROWS]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
// CHECK: %[[L2:.*]] = pgpu.broadcast %[[LANES]] dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
// CHECK: %[[LIVE2:.*]] = pgpu.broadcast %[[LIVE]] dims [0] : !pgpu.fragment<i1, [ROWS]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
// CHECK: %[[OK:.*]] = pgpu.binary and %{{.*}}, %[[LIVE2]] : !pgpu.fragment<i1, [ROWS, BLOCK]>
// CHECK: %[[V:.*]] = pgpu.load %x[%[[R2]], %[[L2]]] valid %[[OK]] {{.*}} -> !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: %[[S:.*]] = pgpu.reduce %[[V]] axes [1] {{.*}} : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>)
// CHECK: %[[SB:.*]] = pgpu.broadcast %[[S]] dims [0] : !pgpu.fragment<f32, [ROWS]> -> !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: %[[Q:.*]] = pgpu.binary div %[[V]], %[[SB]] : !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: pgpu.store %[[Q]], %y[%[[R2]], %[[L2]]] valid %{{.*}} : !pgpu.fragment<i1, [ROWS, BLOCK]>
// CHECK: } else {
// CHECK: %[[END:.*]] = pgpu.binary add %[[FIRST]], %[[ROWS]] : index
// CHECK: %[[LAST:.*]] = pgpu.binary min %[[END]], %[[M]] : index
// CHECK: pgpu.for %[[FIRST]] to %[[LAST]] step %{{.*}} {
// CHECK: ^bb0(%[[ROW:.*]]: index):
// CHECK: pgpu.for
// CHECK: pgpu.load %x[%[[ROW]], %{{.*}}]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @normalize_rows(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "N">]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %true = arith.constant true
        %block = pgpu.param "BLOCK" : index
        %nonempty = pgpu.cmp lt %c0, %N : index
        %fits = pgpu.cmp le %N, %block : index
        %once = pgpu.binary and %nonempty, %fits : i1
        pgpu.if %once {
          %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %s = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %sb = pgpu.splat %s : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %q = pgpu.binary div %v, %sb : !pgpu.fragment<f32, [BLOCK]>
          pgpu.store %q, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        } else {
          %sum = pgpu.for %c0 to %N step %block iter_args(%z : f32) -> f32 {
          ^bb0(%b: index, %acc: f32):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
            %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %part = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %r: f32):
              %a = pgpu.binary add %l, %r : f32
              pgpu.yield %a : f32
            }
            %next = pgpu.binary add %acc, %part : f32
            pgpu.yield %next : f32
          }
          pgpu.for %c0 to %N step %block {
          ^bb0(%b: index):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
            %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %sb = pgpu.splat %sum : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %q = pgpu.binary div %v, %sb : !pgpu.fragment<f32, [BLOCK]>
            pgpu.store %q, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
            pgpu.yield
          }
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

// COM: Must not fire: a staged path that reduces no row (a per-element row is pgpu-refine-mapping's).
// CHECK-LABEL: pgpu.kernel @copy_rows
// CHECK-NOT: ROWS
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["axis0"] {
// CHECK: ^bb0(%{{.*}}: index):
// CHECK: pgpu.if
// CHECK-NOT: ROWS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @copy_rows(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "N">]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %block = pgpu.param "BLOCK" : index
        %fits = pgpu.cmp le %N, %block : index
        pgpu.if %fits {
          %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          pgpu.store %v, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        } else {
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

// COM: Must not fire: a long row's blocked loop alone (no staged path: nothing runs a row at once).
// CHECK-LABEL: pgpu.kernel @row_sums
// CHECK-NOT: ROWS
// CHECK: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @row_sums(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "N">]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %true = arith.constant true
        %block = pgpu.param "BLOCK" : index
        %sum = pgpu.for %c0 to %N step %block iter_args(%z : f32) -> f32 {
        ^bb0(%b: index, %acc: f32):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %part = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %next = pgpu.binary add %acc, %part : f32
          pgpu.yield %next : f32
        }
        pgpu.store %sum, %y[%row] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: row-dependent code before the staged path (a per-row scalar read first).
// CHECK-LABEL: pgpu.kernel @scaled_rows
// CHECK-NOT: ROWS
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scaled_rows(%x: !pgpu.view<f32, [M, N], in>, %w: !pgpu.view<f32, [M], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "N">]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %true = arith.constant true
        %scale = pgpu.load %w[%row] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [M], in>[index] -> f32
        %block = pgpu.param "BLOCK" : index
        %fits = pgpu.cmp le %N, %block : index
        pgpu.if %fits {
          %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %s = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %t = pgpu.binary mul %s, %scale : f32
          %sb = pgpu.splat %t : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %q = pgpu.binary div %v, %sb : !pgpu.fragment<f32, [BLOCK]>
          pgpu.store %q, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        } else {
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
