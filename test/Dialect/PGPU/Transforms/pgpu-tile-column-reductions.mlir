// RUN: tessel-opt %s -split-input-file -pgpu-tile-column-reductions | FileCheck %s

// COM: A column sum: the kept axis d is the read's contiguous (last) coordinate, the reduced axis r
// COM: walks rows. d becomes a loop over blocks of BLOCK_C lanes, the reduction a loop over blocks of
// COM: BLOCK_R whose members are a [BLOCK_R, BLOCK_C] tile (r lanes broadcast along dim 0, d lanes
// COM: along dim 1), neutralized on invalid r lanes and combined lane-wise into a [BLOCK_R, BLOCK_C]
// COM: accumulator the loop carries, reduced along BLOCK_R once after the loop; the store writes the kept row's block under d's lane validity. BLOCK_C covers D (d spans [0, D)),
// COM: BLOCK_R covers R (r spans [0, R): a reduced axis one candidate holds takes it).
// CHECK-LABEL: pgpu.kernel @colsum
// CHECK-SAME: #pgpu.param<"BLOCK_C", [16, 32, 64, 128, 256, 512, 1024], 128, covers = "D">
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128], 16, covers = "R">
// CHECK-NOT: pgpu.foreach
// CHECK: %[[BC:.*]] = pgpu.param "BLOCK_C" : index
// CHECK: pgpu.for %{{.*}} to %[[D:.*]] step %[[BC]] {
// CHECK-NEXT: ^bb0(%[[D0:.*]]: index):
// CHECK: %[[COLS:.*]] = pgpu.iota %[[D0]] : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[COLSOK:.*]] = pgpu.cmp lt %[[COLS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[ID:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[BR:.*]] = pgpu.param "BLOCK_R" : index
// COM: Uniform bounds: the tiles are the segments of a region fold (its operands the values from
// COM: outside the tile, the columns' lanes among them), so pgpu-split-folds may cut the rows into
// COM: segments across programs; each tile's rows are valid below the segment's end.
// CHECK: %[[TILE:.*]] = pgpu.region_fold %{{.*}} to %{{.*}} step %[[BR]] identity(%[[ID]] : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) operands(%[[COLS]], %[[COLSOK]], %x, %{{.*}} : {{.*}}) -> (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) summarize {
// CHECK-NEXT: ^bb0(%[[R0:.*]]: index, %[[END:.*]]: index, %[[ICOLS:.*]]: !pgpu.fragment<index, [BLOCK_C]>, %{{.*}}: !pgpu.fragment<i1, [BLOCK_C]>, %[[X:.*]]: !pgpu.view<f32, [B, R, D], in>, %{{.*}}: index):
// CHECK: %[[ROWS:.*]] = pgpu.iota %[[R0]] : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[ENDS:.*]] = pgpu.splat %[[END]] : index -> !pgpu.fragment<index, [BLOCK_R]>
// CHECK: pgpu.cmp lt %[[ROWS]], %[[ENDS]] : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: pgpu.broadcast %[[ROWS]] dims [0] : !pgpu.fragment<index, [BLOCK_R]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.broadcast %[[ICOLS]] dims [1] : !pgpu.fragment<index, [BLOCK_C]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: %[[V:.*]] = pgpu.load %[[X]][{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> fill %{{.*}} : f32 : !pgpu.view<f32, [B, R, D], in>[index, !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>] -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[M:.*]] = pgpu.select %{{.*}}, %[[V]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK-NOT: pgpu.reduce
// CHECK: pgpu.yield %[[M]] : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: } combine {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>, %[[MORE:.*]]: !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>):
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[ACC]], %[[MORE]] : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.yield %[[NEXT]] : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[SUM:.*]] = pgpu.reduce %[[TILE]] axes [0] identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_C]>)
// COM: Bounds the same for every column: no long-range fallback (no branch, no member walk).
// CHECK-NOT: pgpu.if
// CHECK-NOT: pgpu.extract
// CHECK: pgpu.store %[[SUM]], %y[%{{.*}}, %[[COLS]]] valid %[[COLSOK]] : !pgpu.fragment<i1, [BLOCK_C]> : !pgpu.fragment<f32, [BLOCK_C]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @colsum(%x: !pgpu.view<f32, [B, R, D], in>, %y: !pgpu.view<f32, [B, D], out>) {
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, R, D], in>
    %R = pgpu.extent %x[1] : !pgpu.view<f32, [B, R, D], in>
    %D = pgpu.extent %x[2] : !pgpu.view<f32, [B, R, D], in>
    pgpu.program_space (%B) {
    ^bb0(%b: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.foreach %c0 to %D {
      ^bb0(%d: index):
        %s = pgpu.range_reduce %c0 to %R identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%b, %r, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, R, D], in>[index, index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %y[%b, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, D], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: An embedding bag: rows gathered through an index view over a runtime subregion [lo, hi) read
// COM: from device data. The index read depends on r alone ([BLOCK_R], masked by r's lanes only); the
// COM: table read on both ([BLOCK_R, BLOCK_C], the index broadcast along the columns). The bounds are
// COM: computed before the workset, so the tile loop over r reads them as scalars.
// CHECK-LABEL: pgpu.kernel @bag
// CHECK: pgpu.for %{{.*}} step %{{.*}} {
// COM: Bounds read from memory (not launch values): the tiles stay a loop (no region fold to split).
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.for %{{.*}} to %[[HI:.*]] step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]> {
// CHECK: %[[IDX:.*]] = pgpu.gather %indices[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R]> fill %{{.*}} : i32 : !pgpu.view<i32, [NI], in>[!pgpu.fragment<index, [BLOCK_R]>] -> !pgpu.fragment<i32, [BLOCK_R]>
// CHECK: %[[ROW:.*]] = pgpu.cast %[[IDX]] : !pgpu.fragment<i32, [BLOCK_R]> to !pgpu.fragment<index, [BLOCK_R]>
// CHECK: pgpu.broadcast %[[ROW]] dims [0] : !pgpu.fragment<index, [BLOCK_R]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.gather %table[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> fill %{{.*}} : f32 : !pgpu.view<f32, [V, D], in>[!pgpu.fragment<index, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>] -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.store %{{.*}}, %out[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_C]> : !pgpu.fragment<f32, [BLOCK_C]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @bag(%table: !pgpu.view<f32, [V, D], in>, %indices: !pgpu.view<i32, [NI], in>, %offsets: !pgpu.view<i32, [NB2], in>, %out: !pgpu.view<f32, [NB, D], out>) {
    %D = pgpu.extent %table[1] : !pgpu.view<f32, [V, D], in>
    %NB = pgpu.extent %out[0] : !pgpu.view<f32, [NB, D], out>
    pgpu.program_space (%NB) {
    ^bb0(%b: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %z = arith.constant 0.0 : f32
      %z32 = arith.constant 0 : i32
      %t = arith.constant true
      %o0 = pgpu.load %offsets[%b] valid %t : i1 fill %z32 : i32 : !pgpu.view<i32, [NB2], in>[index] -> i32
      %b1 = pgpu.binary add %b, %c1 : index
      %o1 = pgpu.load %offsets[%b1] valid %t : i1 fill %z32 : i32 : !pgpu.view<i32, [NB2], in>[index] -> i32
      %lo = pgpu.cast %o0 : i32 to index
      %hi = pgpu.cast %o1 : i32 to index
      %n = pgpu.binary sub %hi, %lo : index
      pgpu.foreach %c0 to %D {
      ^bb0(%d: index):
        %s = pgpu.range_reduce %c0 to %n identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %j = pgpu.binary add %lo, %r : index
          %i = pgpu.gather %indices[%j] valid %t : i1 fill %z32 : i32 : !pgpu.view<i32, [NI], in>[index] -> i32
          %row = pgpu.cast %i : i32 to index
          %v = pgpu.gather %table[%row, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [V, D], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %out[%b, %d] valid %t : i1 : f32, !pgpu.view<f32, [NB, D], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The workset is the kept row of the sole execution group, whose other code only reads (a scale):
// COM: its blocks of BLOCK_C columns become a trailing program axis (the program space grows by
// COM: ceil(D / BLOCK_C)), each program one [BLOCK_C] block and its loop over BLOCK_R rows; BLOCK_C
// COM: then covers nothing (the launch sizes it: a call's default narrows it to fill the device).
// CHECK-LABEL: pgpu.kernel @scaled_colsum
// CHECK-SAME: #pgpu.param<"BLOCK_C", [16, 32, 64, 128, 256, 512, 1024], 128>,
// CHECK: %[[BC:.*]] = pgpu.param "BLOCK_C" : index
// CHECK: %[[N:.*]] = pgpu.ceil_div %[[D:.*]], %[[BC]] : index
// CHECK: %[[BLOCKS:.*]] = pgpu.binary max %[[N]], %{{.*}} : index
// CHECK: %[[ALL:.*]] = pgpu.binary mul %[[B:.*]], %[[BLOCKS]] : index
// CHECK: pgpu.program_space(%[[ALL]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[B]], %[[BLOCKS]]) segment 0 roles ["axis0", "axis1"] {
// CHECK-NEXT: ^bb0(%[[ROW:.*]]: index, %[[COL:.*]]: index):
// CHECK: pgpu.load %w[%[[ROW]]]
// CHECK: %[[D0:.*]] = pgpu.binary mul %[[COL]], %{{.*}} : index
// CHECK: %[[COLS:.*]] = pgpu.iota %[[D0]] : !pgpu.fragment<index, [BLOCK_C]>
// CHECK-NOT: pgpu.foreach
// CHECK: pgpu.region_fold %{{.*}} identity(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.binary mul %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: pgpu.store %{{.*}}, %y[%[[ROW]], %[[COLS]]]
// CHECK-NOT: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scaled_colsum(%x: !pgpu.view<f32, [B, R, D], in>, %w: !pgpu.view<f32, [B], in>, %y: !pgpu.view<f32, [B, D], out>) {
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, R, D], in>
    %R = pgpu.extent %x[1] : !pgpu.view<f32, [B, R, D], in>
    %D = pgpu.extent %x[2] : !pgpu.view<f32, [B, R, D], in>
    pgpu.program_space(%B) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%B) segment 0 roles ["axis0"] {
      ^bb0(%b: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %scale = pgpu.load %w[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B], in>[index] -> f32
        pgpu.foreach %c0 to %D {
        ^bb0(%d: index):
          %s = pgpu.range_reduce %c0 to %R identity(%z : f32) -> (f32) element {
          ^bb0(%r: index):
            %v = pgpu.load %x[%b, %r, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, R, D], in>[index, index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a1: f32, %a2: f32):
            %c = pgpu.binary add %a1, %a2 : f32
            pgpu.yield %c : f32
          }
          %m = pgpu.binary mul %s, %scale : f32
          pgpu.store %m, %y[%b, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, D], out>[index, index]
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

// COM: The kept axis is already a program axis (pgpu-flatten-worksets made the whole-body workset a
// COM: group coordinate: one column per program, each reading its column with the row stride): the
// COM: coordinate now counts blocks of BLOCK_C columns, ceil(D / BLOCK_C), the program space is the
// COM: product again, and the body is one [BLOCK_C] block with its loop over BLOCK_R rows.
// CHECK-LABEL: pgpu.kernel @colsum_programs
// CHECK: %[[BC:.*]] = pgpu.param "BLOCK_C" : index
// CHECK: %[[N:.*]] = pgpu.ceil_div %[[D:.*]], %[[BC]] : index
// CHECK: %[[BLOCKS:.*]] = pgpu.binary max %[[N]], %{{.*}} : index
// CHECK: %[[ALL:.*]] = pgpu.binary mul %[[B:.*]], %[[BLOCKS]] : index
// CHECK: pgpu.program_space(%[[ALL]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[B]], %[[BLOCKS]]) segment 0 roles ["axis0", "axis1"] {
// CHECK-NEXT: ^bb0(%[[ROW:.*]]: index, %[[COL:.*]]: index):
// CHECK: %[[D0:.*]] = pgpu.binary mul %[[COL]], %{{.*}} : index
// CHECK: %[[COLS:.*]] = pgpu.iota %[[D0]] : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: pgpu.cmp lt %[[COLS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: pgpu.region_fold %{{.*}} identity(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: pgpu.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.store %{{.*}}, %y[%[[ROW]], %[[COLS]]]
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @colsum_programs(%x: !pgpu.view<f32, [B, R, D], in>, %y: !pgpu.view<f32, [B, D], out>) {
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, R, D], in>
    %R = pgpu.extent %x[1] : !pgpu.view<f32, [B, R, D], in>
    %D = pgpu.extent %x[2] : !pgpu.view<f32, [B, R, D], in>
    %n = pgpu.binary mul %B, %D : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%B, %D) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%b: index, %d: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %s = pgpu.range_reduce %c0 to %R identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%b, %r, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, R, D], in>[index, index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %y[%b, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, D], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the reduction reads along r contiguously (a row sum per d: x[b, d, r]); one
// COM: axis of lanes over r is already coalesced (pgpu-form-blocking's), so the workset stays.
// CHECK-LABEL: pgpu.kernel @rowsums
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.foreach
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowsums(%x: !pgpu.view<f32, [B, D, R], in>, %y: !pgpu.view<f32, [B, D], out>) {
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, D, R], in>
    %D = pgpu.extent %x[1] : !pgpu.view<f32, [B, D, R], in>
    %R = pgpu.extent %x[2] : !pgpu.view<f32, [B, D, R], in>
    pgpu.program_space (%B) {
    ^bb0(%b: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.foreach %c0 to %D {
      ^bb0(%d: index):
        %s = pgpu.range_reduce %c0 to %R identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%b, %d, %r] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, D, R], in>[index, index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %y[%b, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, D], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Ragged bounds over a loop of the kept axis (a triangular column sum over r < d): the members of
// COM: a block of d run together up to the block's longest range (a max-reduction of the bounds on
// COM: d's valid lanes, at least the lower bound), each r lane valid below its own member's bound, so
// COM: every value of r is a [BLOCK_R, BLOCK_C] tile and one validity masks reads and members.
// COM: Ragged by position (r < d reads nothing): no segments of a view extent, no pgpu.segments.
// CHECK-LABEL: pgpu.kernel @triangle
// CHECK-SAME: #pgpu.param<"BLOCK_C", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 128
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 16>]} {
// CHECK-NOT: pgpu.foreach
// CHECK: %[[COLS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[COLSOK:.*]] = pgpu.cmp lt %[[COLS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[LO:.*]] = pgpu.splat %[[C0:.*]] : index -> !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[HIS:.*]] = pgpu.select %[[COLSOK]], %[[COLS]], %[[LO]] : !pgpu.fragment<i1, [BLOCK_C]>, !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[TOP:.*]] = pgpu.reduce %[[HIS]] axes [0] identity(%[[C0]] : index) : (!pgpu.fragment<index, [BLOCK_C]>) -> (index) {
// CHECK: pgpu.binary max
// CHECK: %[[WALKED:.*]] = pgpu.binary min %[[TOP]], %{{.*}} : index
// CHECK: %[[TILE:.*]] = pgpu.for %[[C0]] to %[[WALKED]] step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]> {
// CHECK-NEXT: ^bb0(%[[R0:.*]]: index, %[[ACC:.*]]: !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>):
// CHECK: %[[ROWS:.*]] = pgpu.iota %[[R0]] : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[R:.*]] = pgpu.broadcast %[[ROWS]] dims [0] : !pgpu.fragment<index, [BLOCK_R]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: %[[HI:.*]] = pgpu.broadcast %[[COLS]] dims [1] : !pgpu.fragment<index, [BLOCK_C]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: %[[ROK:.*]] = pgpu.cmp lt %[[R]], %[[HI]] : !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: %[[V:.*]] = pgpu.load %x[%[[R]], %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>
// CHECK: %[[M:.*]] = pgpu.select %[[ROK]], %[[V]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.binary add %[[ACC]], %[[M]] : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.reduce %[[TILE]] axes [0] identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_C]>)
// COM: Columns past the tile's cover (d > BLOCK_R x BLOCK_C) finish one at a time with all lanes, the
// COM: column's own d extracted as a scalar: the read x[r, d] walks r over the whole tile.
// CHECK: %[[DONE:.*]] = pgpu.if %{{.*}} -> !pgpu.fragment<f32, [BLOCK_C]> {
// CHECK: %[[D1:.*]] = pgpu.extract %[[COLS]][%{{.*}}] : !pgpu.fragment<index, [BLOCK_C]> -> index
// CHECK: pgpu.load %x[%{{.*}}, %[[D1]]] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> fill %{{.*}} : f32 : !pgpu.view<f32, [R, D], in>[!pgpu.fragment<index, [BLOCK_R, BLOCK_C]>, index]
// CHECK: pgpu.store %[[DONE]], %y[%[[COLS]]] valid %[[COLSOK]] : !pgpu.fragment<i1, [BLOCK_C]> : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @triangle(%x: !pgpu.view<f32, [R, D], in>, %y: !pgpu.view<f32, [D], out>) {
    %D = pgpu.extent %x[1] : !pgpu.view<f32, [R, D], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.foreach %c0 to %D {
      ^bb0(%d: index):
        %s = pgpu.range_reduce %c0 to %d identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [R, D], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %y[%d] valid %t : i1 : f32, !pgpu.view<f32, [D], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Ragged segments on a program axis (CSR SpMV, one row per program, its nonzeros [0, n(m)) read
// COM: from indptr at the positions indptr[m] + r): each program owns BLOCK_C rows, ceil(M / BLOCK_C)
// COM: programs, and each row's lanes walk its own range (issue 42): the loop runs to the program's
// COM: longest row (a max over the [BLOCK_C] lengths before the loop, capped at the tile's cover), the
// COM: lanes r of the [BLOCK_R, BLOCK_C] tile valid where r < n(m) of their own row -- no cross-lane
// COM: reduction in the loop builds the mask -- and the reads [BLOCK_R, BLOCK_C] gathers at
// COM: indptr[m] + r under it. Rows past the cover finish in the long-row walk. The defaults are 8 rows
// COM: of 16 lanes.
// CHECK-LABEL: pgpu.kernel @csr
// CHECK-SAME: #pgpu.param<"BLOCK_C", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 8
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 16>
// CHECK-SAME: pgpu.segments = {across = "BLOCK_C", along = "BLOCK_R", count = "M", pool = "NNZ"}
// CHECK: %[[BC:.*]] = pgpu.param "BLOCK_C" : index
// CHECK: %[[N:.*]] = pgpu.ceil_div %[[M:.*]], %[[BC]] : index
// CHECK: %[[BLOCKS:.*]] = pgpu.binary max %[[N]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[BLOCKS]]) {
// CHECK: %[[ROWS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[ROWSOK:.*]] = pgpu.cmp lt %[[ROWS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[X:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[LEN:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[HIS:.*]] = pgpu.select %[[ROWSOK]], %[[LEN]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_C]>, !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[TOP:.*]] = pgpu.reduce %[[HIS]] axes [0] identity(%{{.*}} : index) : (!pgpu.fragment<index, [BLOCK_C]>) -> (index) {
// CHECK: pgpu.binary max
// CHECK: %[[WALKED:.*]] = pgpu.binary min %[[TOP]], %{{.*}} : index
// CHECK: %[[TILE:.*]] = pgpu.for %{{.*}} to %[[WALKED]] step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]> {
// CHECK-NEXT: ^bb0(%[[R0:.*]]: index, %[[ACC:.*]]: !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>):
// CHECK-NEXT: %[[R:.*]] = pgpu.iota %[[R0]] : !pgpu.fragment<index, [BLOCK_R]>
// CHECK-NEXT: %[[RR:.*]] = pgpu.broadcast %[[R]] dims [0] : !pgpu.fragment<index, [BLOCK_R]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK-NEXT: %[[LENS:.*]] = pgpu.broadcast %[[LEN]] dims [1] : !pgpu.fragment<index, [BLOCK_C]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK-NEXT: %[[MINE:.*]] = pgpu.cmp lt %[[RR]], %[[LENS]] : !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK-NEXT: %[[STARTS:.*]] = pgpu.broadcast %[[X]] dims [1] : !pgpu.fragment<index, [BLOCK_C]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK-NEXT: %[[K:.*]] = pgpu.binary add %[[STARTS]], %[[RR]] : !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK-NOT: pgpu.reduce
// CHECK: pgpu.gather %values[%[[K]]] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK-NOT: pgpu.reduce
// CHECK: pgpu.gather %indices[%[[K]]] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> {{.*}} -> !pgpu.fragment<i32, [BLOCK_R, BLOCK_C]>
// CHECK-NOT: pgpu.reduce
// CHECK: pgpu.gather %x[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[P:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[SEL:.*]] = pgpu.select %[[MINE]], %[[P]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK-NEXT: %[[NEXT:.*]] = pgpu.binary add %[[ACC]], %[[SEL]] : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK-NEXT: pgpu.yield %[[NEXT]]
// CHECK: %[[SUM:.*]] = pgpu.reduce %[[TILE]] axes [0] identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_C]>)
// CHECK: %[[DONE:.*]] = pgpu.if %{{.*}} -> !pgpu.fragment<f32, [BLOCK_C]> {
// CHECK: pgpu.store %[[DONE]], %y[%[[ROWS]]] valid %[[ROWSOK]] : !pgpu.fragment<i1, [BLOCK_C]> : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @csr(%indptr: !pgpu.view<i32, [M1], in>, %indices: !pgpu.view<i32, [NNZ], in>, %values: !pgpu.view<f32, [NNZ], in>, %x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [M], out>) {
    %c0_i32 = arith.constant 0 : i32
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %y[0] : !pgpu.view<f32, [M], out>
    %NNZ = pgpu.extent %indices[0] : !pgpu.view<i32, [NNZ], in>
    pgpu.program_space(%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        %4 = pgpu.load %indptr[%m] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [M1], in>[index] -> i32
        %5 = pgpu.binary add %m, %c1 : index
        %6 = pgpu.load %indptr[%5] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [M1], in>[index] -> i32
        %7 = pgpu.cast %4 : i32 to index
        %8 = pgpu.cast %6 : i32 to index
        %9 = pgpu.binary max %7, %c0 : index
        %10 = pgpu.binary min %8, %NNZ : index
        %11 = pgpu.binary sub %10, %9 : index
        %12 = pgpu.binary max %11, %c0 : index
        %13 = pgpu.range_reduce %c0 to %12 identity(%cst : f32) -> (f32) element {
        ^bb0(%r: index):
          %14 = pgpu.binary add %9, %r : index
          %15 = pgpu.gather %values[%14] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [NNZ], in>[index] -> f32
          %16 = pgpu.gather %indices[%14] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [NNZ], in>[index] -> i32
          %17 = pgpu.cast %16 : i32 to index
          %18 = pgpu.gather %x[%17] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %19 = pgpu.binary mul %15, %18 : f32
          pgpu.yield %19 : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %13, %y[%m] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Ragged segments walked by member (a CSR row weighted by each nonzero's place in its row,
// COM: w[r]: r is read bare, not only as the position indptr[m] + r, so the positions are not walked):
// COM: one row per program, its nonzeros [0, n(m)) read
// COM: from indptr; the reads walk r contiguously, so only the ragged bounds make it fire): each
// COM: program owns BLOCK_C rows, ceil(M / BLOCK_C) programs; the row's scalars (indptr reads, bounds)
// COM: become [BLOCK_C] fragments read under the rows' validity; the nonzeros run in [BLOCK_R, BLOCK_C]
// COM: tiles up to the longest row of the program, each masked below its own row's length, but no
// COM: further than BLOCK_R x BLOCK_C nonzeros (the tile's cover); when the longest row passes that (a
// COM: branch at run time), each row's nonzeros past the cover are walked with all lanes of the tile
// COM: (r = r0 + i * BLOCK_C + j, its row start and length extracted from the [BLOCK_C] fragments),
// COM: reduced to a scalar and combined into that row's lane; the store writes BLOCK_C rows at once.
// COM: The row lengths are read (indptr) and clamped to [0, NNZ), one row per member of [0, M): the
// COM: kernel states the tile's parameters and those extents (pgpu.segments), whose ratio NNZ / M, the
// COM: average row, a call's default sizes BLOCK_R by.
// CHECK-LABEL: pgpu.kernel @csr_weighted
// CHECK-SAME: #pgpu.param<"BLOCK_C", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 8
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 16>
// CHECK-SAME: pgpu.segments = {across = "BLOCK_C", along = "BLOCK_R", count = "M", pool = "NNZ"}
// CHECK: %[[BC:.*]] = pgpu.param "BLOCK_C" : index
// CHECK: %[[N:.*]] = pgpu.ceil_div %[[M:.*]], %[[BC]] : index
// CHECK: %[[BLOCKS:.*]] = pgpu.binary max %[[N]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[BLOCKS]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[BLOCKS]]) segment 0 roles ["axis0"] {
// CHECK: %[[ROWS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[ROWSOK:.*]] = pgpu.cmp lt %[[ROWS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[LO:.*]] = pgpu.load %indptr[%[[ROWS]]] valid %[[ROWSOK]] : !pgpu.fragment<i1, [BLOCK_C]> fill %{{.*}} : i32 : !pgpu.view<i32, [M1], in>[!pgpu.fragment<index, [BLOCK_C]>] -> !pgpu.fragment<i32, [BLOCK_C]>
// CHECK: pgpu.binary sub %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[LEN:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[HIS:.*]] = pgpu.select %[[ROWSOK]], %[[LEN]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_C]>, !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[TOP:.*]] = pgpu.reduce %[[HIS]] axes [0] identity(%{{.*}} : index) : (!pgpu.fragment<index, [BLOCK_C]>) -> (index)
// CHECK: %[[BC2:.*]] = pgpu.param "BLOCK_C" : index
// CHECK: %[[BR2:.*]] = pgpu.param "BLOCK_R" : index
// CHECK: %[[CELLS:.*]] = pgpu.binary mul %[[BR2]], %[[BC2]] : index
// CHECK: %[[COVER:.*]] = pgpu.binary add %{{.*}}, %[[CELLS]] : index
// CHECK: %[[WALKED:.*]] = pgpu.binary min %[[TOP]], %[[COVER]] : index
// CHECK: %[[TILE:.*]] = pgpu.for %{{.*}} to %[[WALKED]] step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]> {
// CHECK: pgpu.cmp lt %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.gather %values[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.gather %x[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[SUM:.*]] = pgpu.reduce %[[TILE]] axes [0] identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_C]>)
// CHECK: %[[BEYOND:.*]] = pgpu.cmp gt %[[TOP]], %[[COVER]] : index
// CHECK: %[[DONE:.*]] = pgpu.if %[[BEYOND]] -> !pgpu.fragment<f32, [BLOCK_C]> {
// COM: Only the rows past the cover: their count, and each the first past the cover from the one after the last.
// CHECK: %[[PAST:.*]] = pgpu.cmp gt %[[HIS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[COUNT:.*]] = pgpu.reduce %{{.*}} axes [0] identity(%{{.*}} : index) : (!pgpu.fragment<index, [BLOCK_C]>) -> (index)
// CHECK: pgpu.binary add
// CHECK: %[[EACH:.*]]:2 = pgpu.for %{{.*}} to %[[COUNT]] step %{{.*}} iter_args(%{{.*}}, %[[SUM]] : index, !pgpu.fragment<f32, [BLOCK_C]>) -> index, !pgpu.fragment<f32, [BLOCK_C]> {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[FROM:.*]]: index, %[[PART:.*]]: !pgpu.fragment<f32, [BLOCK_C]>):
// CHECK: %[[AHEAD:.*]] = pgpu.cmp ge %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[BOTH:.*]] = pgpu.binary and %[[PAST]], %[[AHEAD]] : !pgpu.fragment<i1, [BLOCK_C]>
// CHECK: %[[C:.*]] = pgpu.reduce %{{.*}} axes [0] {{.*}} -> (index)
// CHECK: pgpu.binary min
// CHECK: %[[LEN1:.*]] = pgpu.extract %[[HIS]][%[[C]]] : !pgpu.fragment<index, [BLOCK_C]> -> index
// CHECK: %[[START1:.*]] = pgpu.extract %{{.*}}[%[[C]]] : !pgpu.fragment<index, [BLOCK_C]> -> index
// CHECK: %[[LONG:.*]] = pgpu.for %[[COVER]] to %[[LEN1]] step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]> {
// CHECK: %[[LANES:.*]] = pgpu.binary add %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: %[[IN:.*]] = pgpu.cmp lt %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.gather %values[%{{.*}}] valid %[[IN]] : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.gather %x[%{{.*}}] valid %[[IN]] : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.reduce %[[LONG]] axes [0] {{.*}} -> (!pgpu.fragment<f32, [BLOCK_C]>)
// CHECK: %[[REST:.*]] = pgpu.reduce %{{.*}} axes [0] {{.*}} -> (f32)
// CHECK: %[[SPLAT:.*]] = pgpu.splat %[[REST]] : f32 -> !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: %[[MERGED:.*]] = pgpu.binary add %[[PART]], %[[SPLAT]] : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: %[[MINE:.*]] = pgpu.cmp eq %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[AFTER:.*]] = pgpu.binary add %[[C]], %{{.*}} : index
// CHECK: %[[NEXT:.*]] = pgpu.select %[[MINE]], %[[MERGED]], %[[PART]]
// CHECK: pgpu.yield %[[AFTER]], %[[NEXT]] : index, !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: pgpu.yield %[[EACH]]#1 : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: } else {
// CHECK: pgpu.yield %[[SUM]] : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: pgpu.store %[[DONE]], %y[%[[ROWS]]] valid %[[ROWSOK]] : !pgpu.fragment<i1, [BLOCK_C]> : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @csr_weighted(%indptr: !pgpu.view<i32, [M1], in>, %indices: !pgpu.view<i32, [NNZ], in>, %values: !pgpu.view<f32, [NNZ], in>, %x: !pgpu.view<f32, [N], in>, %w: !pgpu.view<f32, [K], in>, %y: !pgpu.view<f32, [M], out>) {
    %c0_i32 = arith.constant 0 : i32
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %y[0] : !pgpu.view<f32, [M], out>
    %NNZ = pgpu.extent %indices[0] : !pgpu.view<i32, [NNZ], in>
    pgpu.program_space(%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        %4 = pgpu.load %indptr[%m] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [M1], in>[index] -> i32
        %5 = pgpu.binary add %m, %c1 : index
        %6 = pgpu.load %indptr[%5] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [M1], in>[index] -> i32
        %7 = pgpu.cast %4 : i32 to index
        %8 = pgpu.cast %6 : i32 to index
        %9 = pgpu.binary max %7, %c0 : index
        %10 = pgpu.binary min %8, %NNZ : index
        %11 = pgpu.binary sub %10, %9 : index
        %12 = pgpu.binary max %11, %c0 : index
        %13 = pgpu.range_reduce %c0 to %12 identity(%cst : f32) -> (f32) element {
        ^bb0(%r: index):
          %14 = pgpu.binary add %9, %r : index
          %15 = pgpu.gather %values[%14] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [NNZ], in>[index] -> f32
          %16 = pgpu.gather %indices[%14] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [NNZ], in>[index] -> i32
          %17 = pgpu.cast %16 : i32 to index
          %18 = pgpu.gather %x[%17] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %19 = pgpu.binary mul %15, %18 : f32
          %20 = pgpu.gather %w[%r] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [K], in>[index] -> f32
          %21 = pgpu.binary mul %19, %20 : f32
          pgpu.yield %21 : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %13, %y[%m] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the reduction's lower bound depends on the kept axis (a sum over d <= r < R):
// COM: the lanes of d would start their ranges at different members.
// CHECK-LABEL: pgpu.kernel @suffix
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.foreach
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @suffix(%x: !pgpu.view<f32, [R, D], in>, %y: !pgpu.view<f32, [D], out>) {
    %R = pgpu.extent %x[0] : !pgpu.view<f32, [R, D], in>
    %D = pgpu.extent %x[1] : !pgpu.view<f32, [R, D], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.foreach %c0 to %D {
      ^bb0(%d: index):
        %s = pgpu.range_reduce %d to %R identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [R, D], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %y[%d] valid %t : i1 : f32, !pgpu.view<f32, [D], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
