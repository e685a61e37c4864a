// RUN: tessel-opt %s -split-input-file -pgpu-pack-rows | FileCheck %s

// COM: A staged row path that reduces its row (x / sum(x) when 0 < N <= BLOCK; the blocked loops
// COM: otherwise): each program takes ROWS rows. The staged path's row values gain a leading ROWS
// COM: axis (the row's [BLOCK] load becomes [ROWS, BLOCK], the per-row sum a [ROWS] fragment that
// COM: broadcasts along the columns), the reduction reduces axis 1, the column iota stays [BLOCK], and
// COM: reads and writes are masked to rows below M; the blocked path runs the rows in a loop.
// COM: ROWS declares 1 (one row a program, as without the packing): a binding that knows no row
// COM: length (a launch without params, the wrapper's defaults) must not run 8 long rows of the
// COM: blocked path one after the other; a call's default packs short rows (_kernel.py `_rows`).
// COM: BLOCK gains the narrow widths 16 and 32 (default and covers kept): a packed row of at most 32
// COM: takes a [ROWS, 32] tile at its call's default, not a half-masked [ROWS, 64] one (issue 41).
// CHECK-LABEL: pgpu.kernel @normalize_rows
// CHECK-SAME: #pgpu.param<"BLOCK", [16, 32, 64, 128], 64, covers = "N">
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
// COM: BLOCK keeps its candidates (no narrow widths where no rows are packed).
// CHECK-LABEL: pgpu.kernel @copy_rows
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128], 64, covers = "N">
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

// COM: A row whose reduction is one blocked loop (nothing for pgpu-stage-rows to share) is staged here
// COM: when it packs: the staged path sums [ROWS, BLOCK] tiles along axis 1 and stores [ROWS] sums;
// COM: rows longer than BLOCK keep the blocked loop, one row after the other.
// CHECK-LABEL: pgpu.kernel @row_sums
// CHECK-SAME: #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[MEMBER:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[V:.*]] = pgpu.load %x[%{{.*}}, %{{.*}}] valid %{{.*}} -> !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: %[[S:.*]] = pgpu.reduce %[[V]] axes [1] {{.*}} -> (!pgpu.fragment<f32, [ROWS]>)
// CHECK: pgpu.store %{{.*}}, %y[%[[MEMBER]]] valid %{{.*}} : !pgpu.fragment<i1, [ROWS]> : !pgpu.fragment<f32, [ROWS]>
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: ^bb0(%[[ROW:.*]]: index):
// CHECK: pgpu.for
// CHECK: pgpu.load %x[%[[ROW]], %{{.*}}]
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

// COM: Row-dependent scalar code before the staged path (a per-row scalar read first) moves into it:
// COM: on the staged path the read becomes a [ROWS] read of the program's rows, masked to rows below M.
// CHECK-LABEL: pgpu.kernel @scaled_rows
// CHECK-SAME: "ROWS"
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[MEMBER:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: pgpu.load %w[%[[MEMBER]]] valid %{{.*}} : !pgpu.fragment<i1, [ROWS]> {{.*}} -> !pgpu.fragment<f32, [ROWS]>
// CHECK: pgpu.reduce %{{.*}} axes [1]
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: pgpu.load %w[
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

// -----

// COM: Gathered rows (vals[e] = dot(A[rows[e], :], B[cols[e], :]), 100_sddmm_coo's body: one blocked
// COM: loop, the rows' indices read per member before it): the program's ROWS indices are read as a
// COM: [ROWS] vector, A and B are gathered as [ROWS, BLOCK] tiles through them (index column-broadcast,
// COM: lanes row-broadcast, masked to members below NNZ), the products reduce along axis 1 and [ROWS]
// COM: dots are stored; the blocked path reads each member's indices inside its row loop.
// CHECK-LABEL: pgpu.kernel @gathered_dots
// CHECK-SAME: #pgpu.param<"BLOCK", [16, 32, 64, 128, 256, 512], 512, covers = "K">
// CHECK-SAME: #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>
// CHECK: pgpu.execution_group
// CHECK-NEXT: ^bb0(%[[P:.*]]: index):
// CHECK-NOT: pgpu.load
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[MEMBER:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LIVE:.*]] = pgpu.cmp lt %[[MEMBER]], %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[RI:.*]] = pgpu.load %rows[%[[MEMBER]]] valid %{{.*}} : !pgpu.fragment<i1, [ROWS]> {{.*}} -> !pgpu.fragment<i32, [ROWS]>
// CHECK: %[[R:.*]] = pgpu.cast %[[RI]] : !pgpu.fragment<i32, [ROWS]> to !pgpu.fragment<index, [ROWS]>
// CHECK: %[[CI:.*]] = pgpu.load %cols[%[[MEMBER]]] {{.*}} -> !pgpu.fragment<i32, [ROWS]>
// CHECK: %[[C:.*]] = pgpu.cast %[[CI]]
// CHECK: %[[R2:.*]] = pgpu.broadcast %[[R]] dims [0] : !pgpu.fragment<index, [ROWS]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
// CHECK: %[[L2:.*]] = pgpu.broadcast %{{.*}} dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
// CHECK: %[[GA:.*]] = pgpu.gather %A[%[[R2]], %[[L2]]] valid %{{.*}} : !pgpu.fragment<i1, [ROWS, BLOCK]> {{.*}} -> !pgpu.fragment<f16, [ROWS, BLOCK]>
// CHECK: %[[C2:.*]] = pgpu.broadcast %[[C]] dims [0]
// CHECK: %[[GB:.*]] = pgpu.gather %B[%[[C2]], %[[L2]]] {{.*}} -> !pgpu.fragment<f16, [ROWS, BLOCK]>
// CHECK: pgpu.reduce %{{.*}} axes [1] {{.*}} : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>)
// CHECK: pgpu.store %{{.*}}, %vals[%[[MEMBER]]] valid %{{.*}} : !pgpu.fragment<i1, [ROWS]> : !pgpu.fragment<f32, [ROWS]>
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: ^bb0(%[[ROW:.*]]: index):
// CHECK: pgpu.load %rows[%[[ROW]]] {{.*}} -> i32
// CHECK: pgpu.for
// CHECK: pgpu.gather %A[
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @gathered_dots(%A: !pgpu.view<f16, [M, K], in>, %B: !pgpu.view<f16, [N, K], in>, %rows: !pgpu.view<i32, [NNZ], in>, %cols: !pgpu.view<i32, [NNZ], in>, %vals: !pgpu.view<f32, [NNZ], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512], 512, covers = "K">]} {
    %z16 = arith.constant 0.0 : f16
    %z = arith.constant 0.0 : f32
    %z32 = arith.constant 0 : i32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %K = pgpu.extent %A[1] : !pgpu.view<f16, [M, K], in>
    %NNZ = pgpu.extent %rows[0] : !pgpu.view<i32, [NNZ], in>
    pgpu.program_space(%NNZ) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%NNZ) segment 0 roles ["axis0"] {
      ^bb0(%e: index):
        %ri = pgpu.load %rows[%e] valid %true : i1 fill %z32 : i32 : !pgpu.view<i32, [NNZ], in>[index] -> i32
        %r = pgpu.cast %ri : i32 to index
        %ci = pgpu.load %cols[%e] valid %true : i1 fill %z32 : i32 : !pgpu.view<i32, [NNZ], in>[index] -> i32
        %c = pgpu.cast %ci : i32 to index
        %block = pgpu.param "BLOCK" : index
        %dot = pgpu.for %c0 to %K step %block iter_args(%z : f32) -> f32 {
        ^bb0(%b: index, %acc: f32):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %K : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %a = pgpu.gather %A[%r, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z16 : f16 : !pgpu.view<f16, [M, K], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f16, [BLOCK]>
          %bb = pgpu.gather %B[%c, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z16 : f16 : !pgpu.view<f16, [N, K], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f16, [BLOCK]>
          %af = pgpu.cast %a : !pgpu.fragment<f16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %bf = pgpu.cast %bb : !pgpu.fragment<f16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %p = pgpu.binary mul %af, %bf : !pgpu.fragment<f32, [BLOCK]>
          %part = pgpu.reduce %p axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %rr: f32):
            %s = pgpu.binary add %l, %rr : f32
            pgpu.yield %s : f32
          }
          %next = pgpu.binary add %acc, %part : f32
          pgpu.yield %next : f32
        }
        pgpu.store %dot, %vals[%e] valid %true : i1 : f32, !pgpu.view<f32, [NNZ], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the row's index is read before the blocked loop, but the member also writes
// COM: before it (an effect outside the row path: the prefix cannot move into the staged path). The
// COM: kernel is left exactly as it was (no staged path, no ROWS).
// CHECK-LABEL: pgpu.kernel @gathered_sums_marked
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128], 64, covers = "K">
// CHECK-NOT: ROWS
// CHECK-NOT: pgpu.if
// CHECK: pgpu.store %{{.*}}, %seen[%{{.*}}] valid
// CHECK: pgpu.for
// CHECK-NOT: pgpu.if
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @gathered_sums_marked(%A: !pgpu.view<f32, [M, K], in>, %rows: !pgpu.view<i32, [E], in>, %seen: !pgpu.view<i32, [E], out>, %y: !pgpu.view<f32, [E], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "K">]} {
    %z = arith.constant 0.0 : f32
    %z32 = arith.constant 0 : i32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %K = pgpu.extent %A[1] : !pgpu.view<f32, [M, K], in>
    %E = pgpu.extent %rows[0] : !pgpu.view<i32, [E], in>
    pgpu.program_space(%E) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%E) segment 0 roles ["axis0"] {
      ^bb0(%e: index):
        %ri = pgpu.load %rows[%e] valid %true : i1 fill %z32 : i32 : !pgpu.view<i32, [E], in>[index] -> i32
        pgpu.store %ri, %seen[%e] valid %true : i1 : i32, !pgpu.view<i32, [E], out>[index]
        %r = pgpu.cast %ri : i32 to index
        %block = pgpu.param "BLOCK" : index
        %sum = pgpu.for %c0 to %K step %block iter_args(%z : f32) -> f32 {
        ^bb0(%b: index, %acc: f32):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %K : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %a = pgpu.gather %A[%r, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, K], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %part = pgpu.reduce %a axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %rr: f32):
            %s = pgpu.binary add %l, %rr : f32
            pgpu.yield %s : f32
          }
          %next = pgpu.binary add %acc, %part : f32
          pgpu.yield %next : f32
        }
        pgpu.store %sum, %y[%e] valid %true : i1 : f32, !pgpu.view<f32, [E], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a single blocked loop that reduces nothing (a per-element copy of a gathered row:
// COM: pgpu-refine-mapping's business); the trial staging is dropped and the kernel left as it was.
// CHECK-LABEL: pgpu.kernel @gathered_copy
// CHECK-NOT: ROWS
// CHECK-NOT: pgpu.if
// CHECK: pgpu.load %rows
// CHECK: pgpu.for
// CHECK-NOT: pgpu.if
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @gathered_copy(%A: !pgpu.view<f32, [M, K], in>, %rows: !pgpu.view<i32, [E], in>, %y: !pgpu.view<f32, [E, K], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "K">]} {
    %z = arith.constant 0.0 : f32
    %z32 = arith.constant 0 : i32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %K = pgpu.extent %A[1] : !pgpu.view<f32, [M, K], in>
    %E = pgpu.extent %rows[0] : !pgpu.view<i32, [E], in>
    pgpu.program_space(%E) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%E) segment 0 roles ["axis0"] {
      ^bb0(%e: index):
        %ri = pgpu.load %rows[%e] valid %true : i1 fill %z32 : i32 : !pgpu.view<i32, [E], in>[index] -> i32
        %r = pgpu.cast %ri : i32 to index
        %block = pgpu.param "BLOCK" : index
        pgpu.for %c0 to %K step %block {
        ^bb0(%b: index):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %K : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %a = pgpu.gather %A[%r, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, K], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          pgpu.store %a, %y[%e, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [E, K], out>[index, !pgpu.fragment<index, [BLOCK]>]
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

// COM: A scattered row (corpus 66's cache[slot[t], h, dims]: the row's destination read per member) packs
// COM: like a stored one: the destination read becomes a [ROWS] load of the program's members' slots, the
// COM: row's scatter a [ROWS, BLOCK] scatter through them and the per-row scalar's scatter a [ROWS] one,
// COM: each masked to rows below M. (A unique scatter: a destination repeated across rows was repeated
// COM: across members before, where only equal values may repeat it.)
// CHECK-LABEL: pgpu.kernel @scattered_rows
// CHECK-SAME: #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[MEMBER:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LIVE:.*]] = pgpu.cmp lt %[[MEMBER]], %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LIVE2:.*]] = pgpu.broadcast %[[LIVE]] dims [0] : !pgpu.fragment<i1, [ROWS]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
// CHECK: %[[OK:.*]] = pgpu.binary and %{{.*}}, %[[LIVE2]] : !pgpu.fragment<i1, [ROWS, BLOCK]>
// CHECK: %[[V:.*]] = pgpu.load %x[{{.*}}] valid %[[OK]] {{.*}} -> !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: %[[S:.*]] = pgpu.reduce %[[V]] axes [1] {{.*}} -> (!pgpu.fragment<f32, [ROWS]>)
// CHECK: %[[SOK:.*]] = pgpu.binary and %{{.*}}, %[[LIVE]] : !pgpu.fragment<i1, [ROWS]>
// CHECK: %[[SLOT:.*]] = pgpu.load %slots[%[[MEMBER]]] valid %[[SOK]] : !pgpu.fragment<i1, [ROWS]> {{.*}} -> !pgpu.fragment<i64, [ROWS]>
// CHECK: %[[IDX:.*]] = pgpu.cast %[[SLOT]] : !pgpu.fragment<i64, [ROWS]> to !pgpu.fragment<index, [ROWS]>
// CHECK: %[[I2:.*]] = pgpu.broadcast %[[IDX]] dims [0] : !pgpu.fragment<index, [ROWS]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
// CHECK: pgpu.scatter %{{.*}}, %y[%[[I2]], %{{.*}}] valid %[[OK]] : !pgpu.fragment<i1, [ROWS, BLOCK]> : !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: pgpu.scatter %[[S]], %sums[%[[IDX]]] valid %[[SOK]] : !pgpu.fragment<i1, [ROWS]> : !pgpu.fragment<f32, [ROWS]>
// CHECK: } else {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scattered_rows(%x: !pgpu.view<f32, [M, N], in>, %slots: !pgpu.view<i64, [M], in>,
                              %y: !pgpu.view<f32, [S, N], inout>, %sums: !pgpu.view<f32, [S], inout>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "N">]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %z64 = arith.constant 0 : i64
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
          %slot = pgpu.load %slots[%row] valid %true : i1 fill %z64 : i64 : !pgpu.view<i64, [M], in>[index] -> i64
          %at = pgpu.cast %slot : i64 to index
          %sb = pgpu.splat %s : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %q = pgpu.binary div %v, %sb : !pgpu.fragment<f32, [BLOCK]>
          pgpu.scatter %q, %y[%at, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [S, N], inout>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.scatter %s, %sums[%at] valid %true : i1 : f32, !pgpu.view<f32, [S], inout>[index]
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

// COM: Must not fire: a scatter-reduce in the staged path (its combine is an atomic the packing does not
// COM: widen).
// CHECK-LABEL: pgpu.kernel @scatter_added_rows
// CHECK-NOT: ROWS
// CHECK: pgpu.scatter_reduce %{{.*}} : f32, !pgpu.view<f32, [S], inout>[index]
// CHECK-NOT: ROWS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scatter_added_rows(%x: !pgpu.view<f32, [M, N], in>, %slots: !pgpu.view<i64, [M], in>,
                                  %sums: !pgpu.view<f32, [S], inout>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "N">]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %z64 = arith.constant 0 : i64
        %true = arith.constant true
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
          %slot = pgpu.load %slots[%row] valid %true : i1 fill %z64 : i64 : !pgpu.view<i64, [M], in>[index] -> i64
          %at = pgpu.cast %slot : i64 to index
          pgpu.scatter_reduce %s, %sums[%at] valid %true : i1 : f32, !pgpu.view<f32, [S], inout>[index] {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
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
