// RUN: tessel-opt %s -split-input-file -pgpu-form-blocking | FileCheck %s
// RUN: tessel-opt %s -split-input-file -pgpu-form-blocking -cse | FileCheck %s --check-prefix=CSE
// RUN: tessel-opt %s -split-input-file -pgpu-form-blocking -pgpu-reuse-input-reads -cse | FileCheck %s --check-prefix=REUSE

// COM: A range reduction over a runtime extent becomes a loop over blocks of BLOCK lanes: the index
// COM: becomes iota(b), the load becomes a fragment load masked by lane < N (conjoined with its own
// COM: validity), invalid lanes contribute the identity, pgpu.reduce folds the block, and the partial
// COM: joins the carried accumulator through the same combine. BLOCK is declared on the kernel; the
// COM: blocked range is [0, N) of a named view extent, so BLOCK covers N (a call's default binds the
// COM: smallest BLOCK holding the row).
// CHECK-LABEL: pgpu.kernel @rowsum
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">
// CHECK: %[[BLOCK:.*]] = pgpu.param "BLOCK" : index
// CHECK: %[[SUM:.*]] = pgpu.for %{{.*}} to %[[N:.*]] step %[[BLOCK]] iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[ACC:.*]]: f32):
// CHECK: %[[LANES:.*]] = pgpu.iota %[[B]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[OK:.*]] = pgpu.cmp lt %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[V:.*]] = pgpu.load %x[%{{.*}}, %[[LANES]]] valid %[[VALID:.*]] : !pgpu.fragment<i1, [BLOCK]>
// CHECK: pgpu.select %{{.*}}, %[[V]], %{{.*}} : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[PART:.*]] = pgpu.reduce %{{.*}} axes [0] identity(%{{.*}} : f32)
// CHECK: pgpu.binary add %[[ACC]], %[[PART]] : f32
// CHECK: pgpu.store %[[SUM]], %y
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowsum(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      }
      pgpu.store %s, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Blocked, but BLOCK covers nothing: one range starts at 1 (its size is not a row's), and the
// COM: two blocked ranges span different extents (N and M), so no single symbol sizes BLOCK.
// CHECK-LABEL: pgpu.kernel @tail_and_column
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512>]
// CHECK-COUNT-2: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @tail_and_column(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [2], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %tail = pgpu.range_reduce %c1 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%c0, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      }
      %column = pgpu.range_reduce %c0 to %M identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i, %c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      }
      pgpu.store %tail, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
      pgpu.store %column, %y[%c1] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: An independent workset (foreach) of stores becomes blocked stores with lane validity.
// CHECK-LABEL: pgpu.kernel @scale
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scale(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>, %s: f32) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.foreach %c0 to %N {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %w = pgpu.binary mul %v, %s : f32
        pgpu.store %w, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: an ordered loop is never blocked (its carry stays a scalar). The reduction beside
// COM: it, whose element holds an if, is blocked: the if converted, its result a lane-wise select
// COM: (pgpu-refine-mapping-branches.mlir has a branch that keeps its reduction unblocked).
// CHECK-LABEL: pgpu.kernel @ordered
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.iota
// CHECK: %[[POS:.*]] = pgpu.cmp gt %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [BLOCK]>
// CHECK: pgpu.select %[[POS]], %{{.*}}, %{{.*}} : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
// CHECK-NOT: pgpu.if
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @ordered(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [2], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %run = pgpu.for %c0 to %N step %c1 iter_args(%z : f32) -> f32 {
      ^bb0(%i: index, %a: f32):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %h = pgpu.binary mul %a, %v : f32
        pgpu.yield %h : f32
      }
      %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %pos = pgpu.cmp gt %v, %z : f32
        %r = pgpu.if %pos -> f32 {
          pgpu.yield %v : f32
        } else {
          pgpu.yield %z : f32
        }
        pgpu.yield %r : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      }
      pgpu.store %run, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
      pgpu.store %s, %y[%c1] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A stored scan is blocked in member order: each block's members (identity in invalid lanes) get
// COM: one fragment pgpu.scan that continues from the carried prefix, the emit region's store becomes
// COM: a masked fragment store of the prefixes, and the block's last prefix is the next carry.
// CHECK-LABEL: pgpu.kernel @rowscan
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">
// CHECK: %[[BLOCK:.*]] = pgpu.param "BLOCK" : index
// CHECK: pgpu.for %{{.*}} to %[[N:.*]] step %[[BLOCK]] iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[CARRY:.*]]: f32):
// CHECK: %[[LANES:.*]] = pgpu.iota %[[B]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[OK:.*]] = pgpu.cmp lt %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[V:.*]] = pgpu.load %x[%{{.*}}, %[[LANES]]] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]>
// CHECK: %[[M:.*]] = pgpu.select %[[OK]], %[[V]], %{{.*}} : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[P:.*]] = pgpu.scan %[[M]] axis 0 identity(%{{.*}} : f32) carry(%[[CARRY]] : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (!pgpu.fragment<f32, [BLOCK]>) {
// CHECK: pgpu.binary add
// CHECK: pgpu.store %[[P]], %y[%{{.*}}, %[[LANES]]] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]>
// CHECK: %[[LASTPARAM:.*]] = pgpu.param "BLOCK" : index
// CHECK: %[[LAST:.*]] = pgpu.binary sub %[[LASTPARAM]], %{{.*}} : index
// CHECK: %[[NEXT:.*]] = pgpu.extract %[[P]][%[[LAST]]] : !pgpu.fragment<f32, [BLOCK]> -> f32
// CHECK: pgpu.yield %[[NEXT]] : f32
// CHECK-NOT: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowscan(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.range_scan %c0 to %N identity(%z : f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      } emit {
      ^bb0(%i: index, %p: f32):
        pgpu.store %p, %y[%row, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Exclusive reverse: visit position v addresses lo + hi - 1 - v; the member in lane v is the
// COM: previous one in scan order (address lo + hi - 1 - (v - 1)), valid only after the first, so the
// COM: inclusive fragment scan yields the exclusive prefix; stores use the lane's own address.
// CHECK-LABEL: pgpu.kernel @rowscan_exclusive_reverse
// CHECK: pgpu.for
// CHECK: %[[LANES:.*]] = pgpu.iota
// CHECK: %[[OK:.*]] = pgpu.cmp lt %[[LANES]]
// CHECK: %[[HILO:.*]] = pgpu.binary add %[[LO:.*]], %[[HI:.*]] : index
// CHECK: %[[MIRROR:.*]] = pgpu.binary sub %[[HILO]], %{{.*}} : index
// CHECK: %[[PREV:.*]] = pgpu.binary sub %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[AFTER:.*]] = pgpu.cmp gt %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[MOK:.*]] = pgpu.binary and %[[OK]], %[[AFTER]]
// CHECK: %[[MSPLAT:.*]] = pgpu.splat %[[MIRROR]]
// CHECK: %[[MADDR:.*]] = pgpu.binary sub %[[MSPLAT]], %[[PREV]]
// CHECK: pgpu.load %x[%{{.*}}, %[[MADDR]]] valid
// CHECK: pgpu.select %[[MOK]]
// CHECK: %[[P:.*]] = pgpu.scan %{{.*}} axis 0 identity(%{{.*}} : f32) carry(%{{.*}} : f32) :
// CHECK-NOT: exclusive
// CHECK: %[[SADDR:.*]] = pgpu.binary sub %{{.*}}, %[[LANES]]
// CHECK: pgpu.store %[[P]], %y[%{{.*}}, %[[SADDR]]] valid
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowscan_exclusive_reverse(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.range_scan %c0 to %N identity(%z : f32) exclusive reverse element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      } emit {
      ^bb0(%i: index, %p: f32):
        pgpu.store %p, %y[%row, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a scan whose emit writes one element for every member (each lane would write
// COM: the same element) stays a pgpu.range_scan. The scan before it, whose emit stores under an if,
// COM: is blocked: the store masked by the lanes whose condition holds.
// CHECK-LABEL: pgpu.kernel @scan_unblocked
// CHECK: %[[SCAN:.*]] = pgpu.scan
// CHECK: %[[POS:.*]] = pgpu.cmp gt %[[SCAN]], %{{.*}} : !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[TAKE:.*]] = pgpu.binary and %{{.*}}, %[[POS]] : !pgpu.fragment<i1, [BLOCK]>
// CHECK: %[[VALID:.*]] = pgpu.binary and %{{.*}}, %[[TAKE]] : !pgpu.fragment<i1, [BLOCK]>
// CHECK: pgpu.store %[[SCAN]], %y[%{{.*}}] valid %[[VALID]]
// CHECK-NOT: pgpu.if
// CHECK: pgpu.range_scan
// CHECK-NOT: pgpu.scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scan_unblocked(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>, %last: !pgpu.view<f32, [1], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.range_scan %c0 to %N identity(%z : f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      } emit {
      ^bb0(%i: index, %s: f32):
        %pos = pgpu.cmp gt %s, %z : f32
        pgpu.if %pos {
          pgpu.store %s, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.range_scan %c0 to %N identity(%z : f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      } emit {
      ^bb0(%i: index, %s: f32):
        pgpu.store %s, %last[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A scatter-reduce in an independent workset becomes a fragment scatter-reduce with lane
// COM: validity and the same combine: lanes with equal rows collide and combine (seed 000 §6);
// COM: a coordinate uniform over the lanes (the column here) is spread over them.
// CHECK-LABEL: pgpu.kernel @scatter_add
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[ROWS:.*]] = pgpu.cast %{{.*}} : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[COL:.*]] = pgpu.splat %{{.*}} : index -> !pgpu.fragment<index, [BLOCK]>
// CHECK: pgpu.scatter_reduce %{{.*}}, %w[%[[ROWS]], %[[COL]]] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: pgpu.binary add
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scatter_add(%g: !pgpu.view<f32, [T], in>, %ids: !pgpu.view<i32, [T], in>, %w: !pgpu.view<f32, [V, D], inout>,
                           %col: index) {
    %T = pgpu.extent %g[0] : !pgpu.view<f32, [T], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %zi = arith.constant 0 : i32
      %true = arith.constant true
      pgpu.foreach %c0 to %T {
      ^bb0(%t: index):
        %v = pgpu.load %g[%t] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [T], in>[index] -> f32
        %id = pgpu.load %ids[%t] valid %true : i1 fill %zi : i32 : !pgpu.view<i32, [T], in>[index] -> i32
        %row = pgpu.cast %id : i32 to index
        pgpu.scatter_reduce %v, %w[%row, %col] valid %true : i1 : f32, !pgpu.view<f32, [V, D], inout>[index, index] {
        ^bb0(%a: f32, %b: f32):
          %s = pgpu.binary add %a, %b : f32
          pgpu.yield %s : f32
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A foreach copying invocation workspace into a view (a last-program finalization): workspace
// COM: is read at explicit coordinates like a view, so the read becomes a lane-wide buffer_load under
// COM: the lanes' validity.
// CHECK-LABEL: pgpu.kernel @copy_out
// CHECK: pgpu.for
// CHECK: %[[LANES:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[C:.*]] = pgpu.buffer_load %part[%[[LANES]]] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]> fill %{{.*}} : i32 : !pgpu.buffer<i32, [B], workspace>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
// CHECK: pgpu.store %[[C]], %h[%[[LANES]]]
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @copy_out(%h: !pgpu.view<i32, [B], out>,
                        %part: !pgpu.buffer<i32, [B], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32}) {
    %B = pgpu.extent %h[0] : !pgpu.view<i32, [B], out>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0 : i32
      pgpu.foreach %c0 to %B {
      ^bb0(%k: index):
        %c = pgpu.buffer_load %part[%k] valid %t : i1 fill %z : i32 : !pgpu.buffer<i32, [B], workspace>[index] -> i32
        pgpu.store %c, %h[%k] valid %t : i1 : i32, !pgpu.view<i32, [B], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A kept workspace sum copied out and returned to zero (pgpu-member-partials' finalization): the
// COM: buffer_store of 0 at the lane's coordinate is a lane-wide store under the lanes' validity.
// CHECK-LABEL: pgpu.kernel @copy_and_zero
// CHECK: pgpu.for
// CHECK: %[[LANES:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[C:.*]] = pgpu.buffer_load %sum[%[[LANES]]]
// CHECK: pgpu.buffer_store %{{.*}}, %sum[%[[LANES]]] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.buffer<f32, [B], workspace>[!pgpu.fragment<index, [BLOCK]>]
// CHECK: pgpu.store %[[C]], %h[%[[LANES]]]
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @copy_and_zero(%h: !pgpu.view<f32, [B], out>,
                             %sum: !pgpu.buffer<f32, [B], workspace> {pgpu.private = "workspace", pgpu.init = 0.0 : f32, pgpu.kept}) {
    %B = pgpu.extent %h[0] : !pgpu.view<f32, [B], out>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      pgpu.foreach %c0 to %B {
      ^bb0(%k: index):
        %c = pgpu.buffer_load %sum[%k] valid %t : i1 fill %z : f32 : !pgpu.buffer<f32, [B], workspace>[index] -> f32
        pgpu.buffer_store %z, %sum[%k] valid %t : i1 : f32, !pgpu.buffer<f32, [B], workspace>[index]
        pgpu.store %c, %h[%k] valid %t : i1 : f32, !pgpu.view<f32, [B], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a workspace store at a coordinate no lane changes (every lane would write the
// COM: same element) keeps the foreach as it is.
// CHECK-LABEL: pgpu.kernel @same_element
// CHECK: pgpu.foreach
// CHECK: pgpu.buffer_store %{{.*}}, %sum[%{{.*}}] valid %{{.*}} : i1 : f32
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @same_element(%h: !pgpu.view<f32, [B], in>,
                            %sum: !pgpu.buffer<f32, [1], workspace> {pgpu.private = "workspace", pgpu.init = 0.0 : f32}) {
    %B = pgpu.extent %h[0] : !pgpu.view<f32, [B], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      pgpu.foreach %c0 to %B {
      ^bb0(%k: index):
        %c = pgpu.load %h[%k] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B], in>[index] -> f32
        pgpu.buffer_store %c, %sum[%c0] valid %t : i1 : f32, !pgpu.buffer<f32, [1], workspace>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A perfect nest of alike range reductions over a rectangular product (a group's channels
// COM: [lo, hi), its rows and columns) is one reduction over [0, n_c * H * W): member f stands for
// COM: column f % W, row (f / W) % H and channel lo + f / W / H, and that one range is blocked, so a
// COM: block fills BLOCK lanes however short each axis is. The stores' perfect foreach nest likewise.
// COM: The product spans no one symbol: BLOCK covers nothing.
// COM: The lanes' coordinates are carried, not divided per lane (f = b + j in the block at b): the
// COM: lanes' own j / P, j / P + 1 and j % P once before the loop for P = W and P = W * H; in the
// COM: loop one scalar b / P and b % P, s = b % P + j % P, the carry s >= P (and P > 0), the
// COM: quotient b / P + (carry ? j / P + 1 : j / P), the remainder carry ? s - P : s; the row
// COM: (f / W) % H = f / W - (f / (W * H)) * H (0 where H = 0).
// CHECK-LABEL: pgpu.kernel @group_sum
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512>]
// CHECK: %[[H:.*]] = pgpu.extent %x[2]
// CHECK: %[[W:.*]] = pgpu.extent %x[3]
// CHECK: %[[NC:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : index
// CHECK: %[[NCH:.*]] = pgpu.binary mul %[[NC]], %[[H]] : index
// CHECK: %[[ALL:.*]] = pgpu.binary mul %[[NCH]], %[[W]] : index
// CHECK: %[[J:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[WS:.*]] = pgpu.splat %[[W]] : index -> !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[JQ:.*]] = pgpu.binary div %[[J]], %[[WS]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[JQ1:.*]] = pgpu.binary add %[[JQ]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[JR:.*]] = pgpu.binary rem %[[J]], %[[WS]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[WPOS:.*]] = pgpu.cmp gt %[[W]], %{{.*}} : index
// CHECK: %[[WOK:.*]] = pgpu.splat %[[WPOS]] : i1 -> !pgpu.fragment<i1, [BLOCK]>
// CHECK: %[[WH:.*]] = pgpu.binary mul %[[W]], %[[H]] : index
// CHECK: %[[SUM:.*]] = pgpu.for %{{.*}} to %[[ALL]] step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %{{.*}}: f32):
// CHECK-NEXT: %[[LANES:.*]] = pgpu.iota %[[B]]
// CHECK-NOT: pgpu.binary {{div|rem}} %{{.*}} : !pgpu.fragment
// CHECK: pgpu.binary div %[[B]], %[[WH]] : index
// CHECK-NOT: pgpu.binary {{div|rem}} %{{.*}} : !pgpu.fragment
// CHECK: %[[BQ:.*]] = pgpu.binary div %[[B]], %[[W]] : index
// CHECK-NEXT: %[[BQS:.*]] = pgpu.splat %[[BQ]]
// CHECK-NEXT: %[[BR:.*]] = pgpu.binary rem %[[B]], %[[W]] : index
// CHECK-NEXT: %[[BRS:.*]] = pgpu.splat %[[BR]]
// CHECK-NEXT: %[[S:.*]] = pgpu.binary add %[[BRS]], %[[JR]] : !pgpu.fragment<index, [BLOCK]>
// CHECK-NEXT: %[[GE:.*]] = pgpu.cmp ge %[[S]], %[[WS]] : !pgpu.fragment<index, [BLOCK]>
// CHECK-NEXT: %[[CARRY:.*]] = pgpu.binary and %[[GE]], %[[WOK]] : !pgpu.fragment<i1, [BLOCK]>
// CHECK-NEXT: %[[LQ:.*]] = pgpu.select %[[CARRY]], %[[JQ1]], %[[JQ]]
// CHECK-NEXT: %[[ROWS:.*]] = pgpu.binary add %[[BQS]], %[[LQ]] : !pgpu.fragment<index, [BLOCK]>
// CHECK-NEXT: %[[WRAP:.*]] = pgpu.binary sub %[[S]], %[[WS]] : !pgpu.fragment<index, [BLOCK]>
// CHECK-NEXT: %[[COL:.*]] = pgpu.select %[[CARRY]], %[[WRAP]], %[[S]]
// CHECK-NOT: pgpu.binary {{div|rem}} %{{.*}} : !pgpu.fragment
// CHECK: pgpu.splat %[[H]]
// CHECK: %[[TIMES:.*]] = pgpu.binary mul %[[CH0:.*]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK-NEXT: %[[ROWD:.*]] = pgpu.binary sub %[[ROWS]], %[[TIMES]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[HPOS:.*]] = pgpu.cmp gt %[[H]], %{{.*}} : index
// CHECK-NEXT: %[[HOK:.*]] = pgpu.splat %[[HPOS]]
// CHECK-NEXT: %[[ZS:.*]] = pgpu.splat
// CHECK-NEXT: %[[ROW:.*]] = pgpu.select %[[HOK]], %[[ROWD]], %[[ZS]]
// CHECK-NOT: pgpu.binary {{div|rem}} %{{.*}} : !pgpu.fragment
// CHECK: %[[C:.*]] = pgpu.binary add %{{.*}}, %[[CH0]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: pgpu.load %x[%{{.*}}, %[[C]], %[[ROW]], %[[COL]]]
// CHECK: pgpu.reduce
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.for %{{.*}} to %[[ALL2:.*]] step %{{.*}} {
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @group_sum(%x: !pgpu.view<f32, [N, C, H, W], in>, %y: !pgpu.view<f32, [N, C, H, W], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H, W], in>
    %H = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H, W], in>
    %W = pgpu.extent %x[3] : !pgpu.view<f32, [N, C, H, W], in>
    pgpu.program_space (%N) {
    ^bb0(%n: index):
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c7 = arith.constant 7 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %s = pgpu.range_reduce %c4 to %c7 identity(%z : f32) -> (f32) element {
      ^bb0(%c: index):
        %r = pgpu.range_reduce %c0 to %H identity(%z : f32) -> (f32) element {
        ^bb0(%h: index):
          %q = pgpu.range_reduce %c0 to %W identity(%z : f32) -> (f32) element {
          ^bb0(%w: index):
            %v = pgpu.load %x[%n, %c, %h, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, C, H, W], in>[index, index, index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %e = pgpu.binary add %a, %b : f32
            pgpu.yield %e : f32
          }
          pgpu.yield %q : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %e = pgpu.binary add %a, %b : f32
          pgpu.yield %e : f32
        }
        pgpu.yield %r : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %e = pgpu.binary add %a, %b : f32
        pgpu.yield %e : f32
      }
      pgpu.foreach %c4 to %c7 {
      ^bb0(%c: index):
        pgpu.foreach %c0 to %H {
        ^bb0(%h: index):
          pgpu.foreach %c0 to %W {
          ^bb0(%w: index):
            %v = pgpu.load %x[%n, %c, %h, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, C, H, W], in>[index, index, index, index] -> f32
            %d = pgpu.binary sub %v, %s : f32
            pgpu.store %d, %y[%n, %c, %h, %w] valid %t : i1 : f32, !pgpu.view<f32, [N, C, H, W], out>[index, index, index, index]
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

// COM: Must not fire (the nests stay, only their innermost loops are blocked): an inner range that
// COM: depends on the outer member (a triangle, not a product); an outer member that does more than
// COM: yield the inner reduction (a maximum of row sums: different combines); an outer body that
// COM: computes before its inner loop (not a perfect nest).
// CHECK-LABEL: pgpu.kernel @not_products
// CHECK: %[[M:.*]] = pgpu.extent %x[0]
// CHECK: %[[N:.*]] = pgpu.extent %x[1]
// CHECK: pgpu.range_reduce %{{.*}} to %[[M]]
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK: pgpu.for %{{.*}} to %[[I]] step
// CHECK: pgpu.range_reduce %{{.*}} to %[[M]]
// CHECK: pgpu.for %{{.*}} to %[[N]] step
// CHECK: pgpu.binary max
// CHECK: pgpu.foreach %{{.*}} to %[[M]]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: pgpu.binary mul
// CHECK: pgpu.for %{{.*}} to %[[N]] step
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @not_products(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>, %o: !pgpu.view<f32, [2], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %tri = pgpu.range_reduce %c0 to %M identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %r = pgpu.range_reduce %c0 to %i identity(%z : f32) -> (f32) element {
        ^bb0(%j: index):
          %v = pgpu.load %x[%i, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %e = pgpu.binary add %a, %b : f32
          pgpu.yield %e : f32
        }
        pgpu.yield %r : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %e = pgpu.binary add %a, %b : f32
        pgpu.yield %e : f32
      }
      %big = pgpu.range_reduce %c0 to %M identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %r = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
        ^bb0(%j: index):
          %v = pgpu.load %x[%i, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %e = pgpu.binary add %a, %b : f32
          pgpu.yield %e : f32
        }
        pgpu.yield %r : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %e = pgpu.binary max %a, %b : f32
        pgpu.yield %e : f32
      }
      pgpu.foreach %c0 to %M {
      ^bb0(%i: index):
        %rowscale = pgpu.binary mul %tri, %big : f32
        pgpu.foreach %c0 to %N {
        ^bb0(%j: index):
          %v = pgpu.load %x[%i, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %d = pgpu.binary mul %v, %rowscale : f32
          pgpu.store %d, %y[%i, %j] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire: a perfect foreach nest whose store does not depend on the outer member (every
// COM: row writes the same y[j], the last row's value stays) keeps its order: flattened lanes would
// COM: write one element at once. Only the inner loop is blocked.
// CHECK-LABEL: pgpu.kernel @column_writes
// CHECK: pgpu.foreach
// CHECK: pgpu.for
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @column_writes(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.foreach %c0 to %M {
      ^bb0(%i: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%j: index):
          %v = pgpu.load %x[%i, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.store %v, %y[%j] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: A foreach holding an ordered loop whose bounds every lane shares (an accumulator over a
// COM: bag's items per column, CarriedTensors.cpp): the lanes run the loop's iterations together,
// COM: in order; the carry that depends on the lane becomes a fragment, the index read stays scalar.
// CHECK-LABEL: pgpu.kernel @bag
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "D">
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[LANES:.*]] = pgpu.iota
// CHECK: %[[ACC:.*]] = pgpu.for %{{.*}} to %[[K:.*]] step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
// CHECK: %[[ROW:.*]] = pgpu.load %idx[%{{.*}}] {{.*}} -> i32
// CHECK: pgpu.gather %table[%{{.*}}, %[[LANES]]] {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: pgpu.store %[[ACC]], %out[%{{.*}}, %[[LANES]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @bag(%table: !pgpu.view<f32, [V, D], in>, %idx: !pgpu.view<i32, [K], in>, %out: !pgpu.view<f32, [B, D], out>) {
    %B = pgpu.extent %out[0] : !pgpu.view<f32, [B, D], out>
    %D = pgpu.extent %table[1] : !pgpu.view<f32, [V, D], in>
    %K = pgpu.extent %idx[0] : !pgpu.view<i32, [K], in>
    pgpu.program_space (%B) {
    ^bb0(%b: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %z = arith.constant 0.0 : f32
      %zi = arith.constant 0 : i32
      %t = arith.constant true
      pgpu.foreach %c0 to %D {
      ^bb0(%d: index):
        %acc = pgpu.for %c0 to %K step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%j: index, %a: f32):
          %r = pgpu.load %idx[%j] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [K], in>[index] -> i32
          %ri = pgpu.cast %r : i32 to index
          %v = pgpu.gather %table[%ri, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [V, D], in>[index, index] -> f32
          %n = pgpu.binary add %a, %v : f32
          pgpu.yield %n : f32
        }
        pgpu.store %acc, %out[%b, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, D], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the loop's trip count depends on the lane (the column index), so the lanes of a
// COM: block would run different numbers of iterations.
// CHECK-LABEL: pgpu.kernel @triangle
// CHECK-NOT: BLOCK
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @triangle(%x: !pgpu.view<f32, [D, D], in>, %out: !pgpu.view<f32, [D], out>) {
    %D = pgpu.extent %x[0] : !pgpu.view<f32, [D, D], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.foreach %c0 to %D {
      ^bb0(%d: index):
        %acc = pgpu.for %c0 to %d step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%j: index, %a: f32):
          %v = pgpu.load %x[%d, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [D, D], in>[index, index] -> f32
          %n = pgpu.binary add %a, %v : f32
          pgpu.yield %n : f32
        }
        pgpu.store %acc, %out[%d] valid %t : i1 : f32, !pgpu.view<f32, [D], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The members a program owns (pgpu-refine-mapping's foreach over [lo, min(lo + BLOCK_P, n)))
// COM: holding an ordered loop are one block of BLOCK_P lanes: the loop runs once per program, not
// COM: once per block of BLOCK lanes, and BLOCK is not declared.
// CHECK-LABEL: pgpu.kernel @owned
// CHECK-NOT: "BLOCK"
// CHECK: pgpu.execution_group
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK-NEXT: pgpu.for %{{.*}} to %{{.*}} step %[[BP]] {
// CHECK: pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_P]>
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_P]>) -> !pgpu.fragment<f32, [BLOCK_P]> {
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @owned(%x: !pgpu.view<f32, [T, C], in>, %y: !pgpu.view<f32, [T, C], out>) attributes {params = [#pgpu.param<"BLOCK_P", [16, 32, 64, 128, 256, 512, 1024], 64>]} {
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T, C], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [T, C], in>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bp = pgpu.param "BLOCK_P" : index
    %g = pgpu.ceil_div %C, %bp : index
    pgpu.program_space (%g) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%g) segment 0 roles ["c"] {
      ^bb0(%o: index):
        %lo = pgpu.binary mul %o, %bp : index
        %e = pgpu.binary add %lo, %bp : index
        %hi = pgpu.binary min %e, %C : index
        pgpu.foreach %lo to %hi {
        ^bb0(%c: index):
          %z = arith.constant 0.0 : f32
          %t = arith.constant true
          %h = pgpu.for %c0 to %T step %c1 iter_args(%z : f32) -> f32 {
          ^bb0(%i: index, %acc: f32):
            %v = pgpu.load %x[%i, %c] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T, C], in>[index, index] -> f32
            %n = pgpu.binary add %acc, %v : f32
            pgpu.store %n, %y[%i, %c] valid %t : i1 : f32, !pgpu.view<f32, [T, C], out>[index, index]
            pgpu.yield %n : f32
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

// COM: Slices of a row bounded by a shape symbol (rotate-half: `dims[0:D2]` spans min(D2, D),
// COM: `dims[D2:2 * D2]` spans min(2 * D2, D) - D2): each is at most D2 members, so BLOCK covers D2
// COM: and a call's default binds one block of the half row (64 for D2 = 64, not 512).
// CHECK-LABEL: pgpu.kernel @half_rows
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "D2">
// CHECK-COUNT-2: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @half_rows(%x: !pgpu.view<f32, [M, D], in>, %c: !pgpu.view<f32, [D2], in>, %y: !pgpu.view<f32, [M, D], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, D], in>
    %D = pgpu.extent %x[1] : !pgpu.view<f32, [M, D], in>
    %D2 = pgpu.extent %c[0] : !pgpu.view<f32, [D2], in>
    %lo0 = pgpu.ceil_div %c0, %c1 : index
    %m0 = pgpu.binary min %D2, %D : index
    %s0 = pgpu.binary sub %m0, %lo0 : index
    %d0 = pgpu.ceil_div %s0, %c1 : index
    %n0 = pgpu.binary max %d0, %c0 : index
    %twice = pgpu.binary mul %c2, %D2 : index
    %p1 = pgpu.binary max %D2, %c0 : index
    %lo1 = pgpu.ceil_div %p1, %c1 : index
    %m1 = pgpu.binary min %twice, %D : index
    %s1 = pgpu.binary sub %m1, %lo1 : index
    %d1 = pgpu.ceil_div %s1, %c1 : index
    %n1 = pgpu.binary max %d1, %c0 : index
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      pgpu.foreach %c0 to %n0 {
      ^bb0(%i: index):
        %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
        %w = pgpu.load %c[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [D2], in>[index] -> f32
        %p = pgpu.binary mul %v, %w : f32
        pgpu.store %p, %y[%row, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, D], out>[index, index]
        pgpu.yield
      }
      pgpu.foreach %c0 to %n1 {
      ^bb0(%i: index):
        %j = pgpu.binary add %lo1, %i : index
        %v = pgpu.load %x[%row, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
        pgpu.store %v, %y[%row, %j] valid %t : i1 : f32, !pgpu.view<f32, [M, D], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A row's blocks of 128 columns (cols[128j : min(128j + 128, N)], member (m, j)): the length
// COM: max(min(128j + 128, N) - max(128j, 0), 0) depends on j, but never exceeds the slice's constant
// COM: width, so BLOCK covers "128" (a call's default binds 128, not 512, at any N).
// CHECK-LABEL: pgpu.kernel @row_blocks
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "128">
// CHECK: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @row_blocks(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, NB], out>) {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %NB = pgpu.extent %y[1] : !pgpu.view<f32, [M, NB], out>
    %all = pgpu.binary mul %M, %NB : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M, %NB) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%m: index, %j: index):
        %lo = pgpu.binary mul %j, %c128 : index
        %e = pgpu.binary add %lo, %c128 : index
        %end = pgpu.binary min %e, %N : index
        %start = pgpu.binary max %lo, %c0 : index
        %end2 = pgpu.binary min %end, %N : index
        %d = pgpu.binary sub %end2, %start : index
        %n = pgpu.binary max %d, %c0 : index
        %s = pgpu.range_reduce %c0 to %n identity(%z : f32) -> (f32) element {
        ^bb0(%i: index):
          %col = pgpu.binary add %start, %i : index
          %v = pgpu.load %x[%m, %col] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %r = pgpu.binary add %a, %b : f32
          pgpu.yield %r : f32
        }
        pgpu.store %s, %y[%m, %j] valid %t : i1 : f32, !pgpu.view<f32, [M, NB], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire (covers): blocks of a runtime width W (cols[Wj : min(Wj + W, N)]) have no
// COM: constant bound and no symbol bounds them alone: BLOCK covers nothing.
// CHECK-LABEL: pgpu.kernel @runtime_blocks
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512>]
// CHECK: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @runtime_blocks(%x: !pgpu.view<f32, [M, N], in>, %w: !pgpu.view<f32, [W], in>, %y: !pgpu.view<f32, [M, NB], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %W = pgpu.extent %w[0] : !pgpu.view<f32, [W], in>
    %NB = pgpu.extent %y[1] : !pgpu.view<f32, [M, NB], out>
    %all = pgpu.binary mul %M, %NB : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M, %NB) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%m: index, %j: index):
        %lo = pgpu.binary mul %j, %W : index
        %e = pgpu.binary add %lo, %W : index
        %end = pgpu.binary min %e, %N : index
        %start = pgpu.binary max %lo, %c0 : index
        %d = pgpu.binary sub %end, %start : index
        %n = pgpu.binary max %d, %c0 : index
        %s = pgpu.range_reduce %c0 to %n identity(%z : f32) -> (f32) element {
        ^bb0(%i: index):
          %col = pgpu.binary add %start, %i : index
          %v = pgpu.load %x[%m, %col] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %r = pgpu.binary add %a, %b : f32
          pgpu.yield %r : f32
        }
        pgpu.store %s, %y[%m, %j] valid %t : i1 : f32, !pgpu.view<f32, [M, NB], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a prefix bounded by a program's coordinate (grouped GEMM's `groups[0:g]` spans
// COM: min(g, G)) is no row's length.
// CHECK-LABEL: pgpu.kernel @moving_prefix
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512>]
// CHECK: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @moving_prefix(%x: !pgpu.view<f32, [G, D], in>, %c: !pgpu.view<f32, [D2], in>, %y: !pgpu.view<f32, [G, D], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %G = pgpu.extent %x[0] : !pgpu.view<f32, [G, D], in>
    %D = pgpu.extent %x[1] : !pgpu.view<f32, [G, D], in>
    %D2 = pgpu.extent %c[0] : !pgpu.view<f32, [D2], in>
    pgpu.program_space (%G) {
    ^bb0(%g: index):
      %m0 = pgpu.binary min %g, %G : index
      pgpu.foreach %c0 to %m0 {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i, %g] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [G, D], in>[index, index] -> f32
        pgpu.store %v, %y[%i, %g] valid %t : i1 : f32, !pgpu.view<f32, [G, D], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A kernel-level reduction (the only range_reduce of a group without axes, launch-uniform
// COM: bounds: `loss[0] = T.sum(x * x)`) becomes a region fold over blocks of BLOCK lanes: summarize
// COM: one block (invalid lanes the identity), combine the reduction's combine lane-wise, the [BLOCK]
// COM: summary reduced to the scalar once after the fold; pgpu-split-folds may then cut its blocks
// COM: across programs. The summarize region is closed (the view's extent N is an operand).
// CHECK-LABEL: pgpu.kernel @total
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">
// CHECK: pgpu.execution_group %{{.*}} extents() segment 0
// CHECK: %[[ID:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[STEP:.*]] = pgpu.param "BLOCK" : index
// CHECK: %[[ACC:.*]] = pgpu.region_fold %{{.*}} to %[[N:.*]] step %[[STEP]] identity(%[[ID]] : !pgpu.fragment<f32, [BLOCK]>) operands(
// CHECK: ^bb0(%[[B:.*]]: index, %[[E:.*]]: index
// CHECK: %[[LANES:.*]] = pgpu.iota %[[B]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[OK:.*]] = pgpu.cmp lt %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: pgpu.load %{{.*}}[%[[LANES]]]
// CHECK: %[[M:.*]] = pgpu.select %[[OK]], %{{.*}}, %{{.*}} : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
// CHECK: pgpu.yield %[[M]] : !pgpu.fragment<f32, [BLOCK]>
// CHECK: } combine {
// CHECK: pgpu.binary add %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[S:.*]] = pgpu.reduce %[[ACC]] axes [0]
// CHECK: pgpu.store %[[S]], %out[
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @total(%x: !pgpu.view<f32, [N], in>, %out: !pgpu.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %w = pgpu.binary mul %v, %v : f32
          pgpu.yield %w : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %c = pgpu.binary add %a, %b : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %out[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Two kernel-level reductions over one range in one group are siblings: the pass first makes them
// COM: one reduction of two components (one walk), which is then the group's only reduction and becomes
// COM: one region fold with a two-component summary. Must not fire (the fold): a reduction per row of a
// COM: group with axes stays a loop over blocks of BLOCK lanes.
// CHECK-LABEL: pgpu.kernel @two_totals
// CHECK-NOT: pgpu.for
// CHECK: %{{.*}}:2 = pgpu.region_fold
// CHECK: combine {
// CHECK: %{{.*}}:2 = pgpu.reduce
// CHECK-LABEL: pgpu.kernel @row_totals
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.for
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @two_totals(%x: !pgpu.view<f32, [N], in>, %out: !pgpu.view<f32, [2], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %c = pgpu.binary add %a, %b : f32
          pgpu.yield %c : f32
        }
        %q = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %w = pgpu.binary mul %v, %v : f32
          pgpu.yield %w : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %c = pgpu.binary add %a, %b : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %out[%c0] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
        pgpu.store %q, %out[%c1] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @row_totals(%x: !pgpu.view<f32, [M, N], in>, %out: !pgpu.view<f32, [M], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %c = pgpu.binary add %a, %b : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %out[%m] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not carry (the lanes stay divided): a constant divisor (8: a shift or a multiply
// COM: already), a divisor computed in the loop (W + 1, uniform but not invariant: its lanes'
// COM: quotients could not be computed once before the loop), a divisor not provably non-negative
// COM: (a difference of extents: floor division by a negative has remainders of its sign).
// CHECK-LABEL: pgpu.kernel @lanes_kept
// CHECK: pgpu.for
// CHECK: %[[LANES:.*]] = pgpu.iota
// CHECK: pgpu.binary rem %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[W1:.*]] = pgpu.binary add %{{.*}}, %{{.*}} : index
// CHECK: %[[W1S:.*]] = pgpu.splat %[[W1]]
// CHECK: pgpu.binary div %[[LANES]], %[[W1S]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: pgpu.binary div %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK-NOT: pgpu.cmp ge
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @lanes_kept(%x: !pgpu.view<f32, [N], in>, %o: !pgpu.view<f32, [1], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c1000 = arith.constant 1000 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %neg = pgpu.binary sub %N, %c1000 : index
      %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %a = pgpu.binary rem %i, %c8 : index
        %w1 = pgpu.binary add %N, %c1 : index
        %b = pgpu.binary div %i, %w1 : index
        %c = pgpu.binary div %i, %neg : index
        %ab = pgpu.binary add %a, %b : index
        %abc = pgpu.binary add %ab, %c : index
        %v = pgpu.load %x[%abc] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%l: f32, %r: f32):
        %e = pgpu.binary add %l, %r : f32
        pgpu.yield %e : f32
      }
      pgpu.store %s, %o[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Sibling reductions over the same range, independent of each other (a layer norm
// COM: backward's sum(g * xhat) and sum(g) per row), become one reduction before blocking: one
// COM: loop whose block reads x once for both (one pgpu.reduce of two components), the pure op
// COM: between them and the store of another view between them (the first sum's output) staying
// COM: where they were. The later reduction's uses read the merged loop's second result.
// COM: The pipeline's CSE after the pass merges the block's two identical reads of x into one.
// CSE-LABEL: pgpu.kernel @sibling_sums
// CSE: pgpu.for
// CSE: pgpu.load %x[
// CSE-NOT: pgpu.load %x[
// CSE: pgpu.reduce
// CSE-LABEL: pgpu.kernel @siblings_kept
// CHECK-LABEL: pgpu.kernel @sibling_sums
// CHECK: %[[BOTH:.*]]:2 = pgpu.for %{{.*}} to %[[N:.*]] step %{{.*}} iter_args(%{{.*}}, %{{.*}} : f32, f32) -> f32, f32 {
// CHECK: pgpu.load %x[
// CHECK: pgpu.load %x[
// CHECK: pgpu.reduce %{{.*}}, %{{.*}} axes [0]
// CHECK: }
// CHECK-NOT: pgpu.for
// CHECK: %[[MEAN:.*]] = pgpu.binary div %[[BOTH]]#0, %{{.*}} : f32
// CHECK: pgpu.store %[[MEAN]], %s[
// CHECK: pgpu.store %[[BOTH]]#1, %q[
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @sibling_sums(%x: !pgpu.view<f32, [M, N], in>, %s: !pgpu.view<f32, [M], out>, %q: !pgpu.view<f32, [M], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%m: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %nf = pgpu.cast %N : index to f32
      %sum = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %e = pgpu.binary add %a, %b : f32
        pgpu.yield %e : f32
      }
      %mean = pgpu.binary div %sum, %nf : f32
      pgpu.store %mean, %s[%m] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
      %sq = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        %v2 = pgpu.binary mul %v, %v : f32
        pgpu.yield %v2 : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %e = pgpu.binary add %a, %b : f32
        pgpu.yield %e : f32
      }
      pgpu.store %sq, %q[%m] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not merge (three loops stay): a reduction that uses an earlier one's result (a
// COM: variance about the mean: its walk needs the mean first), one over another range, and one
// COM: reading a view written between them (y, read after the store of the mean into it).
// CHECK-LABEL: pgpu.kernel @siblings_kept
// CHECK: pgpu.for %{{.*}} to %[[N:.*]] step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.for %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.for %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NOT: -> f32, f32
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @siblings_kept(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], inout>, %o: !pgpu.view<f32, [M, 3], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%m: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %half = pgpu.binary div %N, %c2 : index
      %sum = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %e = pgpu.binary add %a, %b : f32
        pgpu.yield %e : f32
      }
      %var = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        %d = pgpu.binary sub %v, %sum : f32
        %d2 = pgpu.binary mul %d, %d : f32
        pgpu.yield %d2 : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %e = pgpu.binary add %a, %b : f32
        pgpu.yield %e : f32
      }
      %part = pgpu.range_reduce %c0 to %half identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %e = pgpu.binary add %a, %b : f32
        pgpu.yield %e : f32
      }
      pgpu.store %sum, %y[%m, %c0] valid %t : i1 : f32, !pgpu.view<f32, [M, N], inout>[index, index]
      %back = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %y[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], inout>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %e = pgpu.binary add %a, %b : f32
        pgpu.yield %e : f32
      }
      pgpu.store %var, %o[%m, %c0] valid %t : i1 : f32, !pgpu.view<f32, [M, 3], out>[index, index]
      pgpu.store %part, %o[%m, %c1] valid %t : i1 : f32, !pgpu.view<f32, [M, 3], out>[index, index]
      pgpu.store %back, %o[%m, %c2] valid %t : i1 : f32, !pgpu.view<f32, [M, 3], out>[index, index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Sibling foreach loops over the same range (refine-mapping's row loops: each bound computed
// COM: from its own copy of the member count), independent of each other and both reading x (a 2x2
// COM: max-pool's value and argmax loops), run in one walk: one blocked loop storing both y and z,
// COM: whose block reads x once after pgpu-reuse-input-reads (it was read once per loop).
// REUSE-LABEL: pgpu.kernel @sibling_foreachs(
// REUSE: pgpu.for
// REUSE: pgpu.load %x[
// REUSE-NOT: pgpu.load %x[
// REUSE: pgpu.store
// REUSE: pgpu.store
// REUSE-NOT: pgpu.for
// CHECK-LABEL: pgpu.kernel @sibling_foreachs(
// CHECK: pgpu.for
// CHECK: pgpu.load %x[
// CHECK: pgpu.store %{{.*}}, %y[
// CHECK: pgpu.load %x[
// CHECK: pgpu.store %{{.*}}, %z[
// CHECK: }
// CHECK-NOT: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @sibling_foreachs(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>, %z: !pgpu.view<i32, [N], out>) attributes {params = [#pgpu.param<"BLOCK_P", [256, 512], 256>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %P = pgpu.param "BLOCK_P" : index
    %G = pgpu.ceil_div %N, %P : index
    pgpu.program_space (%G) {
    ^bb0(%p: index):
      %z0 = arith.constant 0.0 : f32
      %t = arith.constant true
      %lo = pgpu.binary mul %p, %P : index
      %end = pgpu.binary add %lo, %P : index
      %n1 = pgpu.binary mul %N, %P : index
      %n2 = pgpu.binary mul %N, %P : index
      %hi1 = pgpu.binary min %end, %N : index
      pgpu.foreach %lo to %hi1 {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z0 : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %a = pgpu.binary mul %v, %v : f32
        pgpu.store %a, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      %hi2 = pgpu.binary min %end, %N : index
      pgpu.foreach %lo to %hi2 {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z0 : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %s = pgpu.cmp gt %v, %z0 : f32
        %c = pgpu.cast %s : i1 to i32
        pgpu.store %c, %z[%i] valid %t : i1 : i32, !pgpu.view<i32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fuse (four loops stay): a loop reading the view the earlier one writes (w: its
// COM: member m reads what the earlier loop's member m + 1 writes, which fusion would run later), a
// COM: loop sharing no read with the one before it (u against w and x: one walk would only add
// COM: register pressure), and a loop over another range (reading u like the one before it).
// REUSE-LABEL: pgpu.kernel @sibling_foreachs_kept
// CHECK-LABEL: pgpu.kernel @sibling_foreachs_kept
// CHECK: pgpu.for
// CHECK: pgpu.store %{{.*}}, %w[
// CHECK: }
// CHECK: pgpu.for
// CHECK: pgpu.load %w[
// CHECK: }
// CHECK: pgpu.for
// CHECK: pgpu.load %u[
// CHECK: }
// CHECK: pgpu.for
// CHECK: pgpu.load %u[
// CHECK: }
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @sibling_foreachs_kept(%x: !pgpu.view<f32, [N], in>, %u: !pgpu.view<f32, [N], in>, %w: !pgpu.view<f32, [N], inout>, %y: !pgpu.view<f32, [N], out>, %o: !pgpu.view<f32, [N], out>, %q: !pgpu.view<f32, [N], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %one = arith.constant 1 : index
    pgpu.program_space (%one) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %z0 = arith.constant 0.0 : f32
      %t = arith.constant true
      %half = pgpu.binary div %N, %c2 : index
      pgpu.foreach %c0 to %N {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z0 : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.store %v, %w[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], inout>[index]
        pgpu.yield
      }
      pgpu.foreach %c0 to %N {
      ^bb0(%i: index):
        %j = pgpu.binary add %i, %c1 : index
        %k = pgpu.binary rem %j, %N : index
        %v = pgpu.load %w[%k] valid %t : i1 fill %z0 : f32 : !pgpu.view<f32, [N], inout>[index] -> f32
        %e = pgpu.load %x[%i] valid %t : i1 fill %z0 : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %s = pgpu.binary add %v, %e : f32
        pgpu.store %s, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.foreach %c0 to %N {
      ^bb0(%i: index):
        %v = pgpu.load %u[%i] valid %t : i1 fill %z0 : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.store %v, %o[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.foreach %c0 to %half {
      ^bb0(%i: index):
        %v = pgpu.load %u[%i] valid %t : i1 fill %z0 : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.store %v, %q[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
