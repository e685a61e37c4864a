// RUN: tessel-opt %s -split-input-file -pgpu-tile-column-reductions | FileCheck %s

// COM: A column sum: the kept axis d is the read's contiguous (last) coordinate, the reduced axis r
// COM: walks rows. d becomes a loop over blocks of BLOCK_C lanes, the reduction a loop over blocks of
// COM: BLOCK_R whose members are a [BLOCK_R, BLOCK_C] tile (r lanes broadcast along dim 0, d lanes
// COM: along dim 1), neutralized on invalid r lanes and reduced along BLOCK_R into a [BLOCK_C] carry;
// COM: the store writes the kept row's block under d's lane validity. BLOCK_C covers D (d spans [0, D)),
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
// CHECK: %[[ID:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: %[[BR:.*]] = pgpu.param "BLOCK_R" : index
// CHECK: %[[SUM:.*]] = pgpu.for %{{.*}} to %{{.*}} step %[[BR]] iter_args(%[[ID]] : !pgpu.fragment<f32, [BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_C]> {
// CHECK-NEXT: ^bb0(%[[R0:.*]]: index, %[[ACC:.*]]: !pgpu.fragment<f32, [BLOCK_C]>):
// CHECK: %[[ROWS:.*]] = pgpu.iota %[[R0]] : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: pgpu.broadcast %[[ROWS]] dims [0] : !pgpu.fragment<index, [BLOCK_R]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.broadcast %[[COLS]] dims [1] : !pgpu.fragment<index, [BLOCK_C]> -> !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>
// CHECK: %[[V:.*]] = pgpu.load %x[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]> fill %{{.*}} : f32 : !pgpu.view<f32, [B, R, D], in>[index, !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>] -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[M:.*]] = pgpu.select %{{.*}}, %[[V]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[PART:.*]] = pgpu.reduce %[[M]] axes [0] identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_C]>)
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[ACC]], %[[PART]] : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: pgpu.yield %[[NEXT]] : !pgpu.fragment<f32, [BLOCK_C]>
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
// CHECK: pgpu.for %{{.*}} to %[[HI:.*]] step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_C]> {
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
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_C]>)
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
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_C]>)
// CHECK: pgpu.load %x[%[[ROW]], %{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
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

// COM: Must not fire: the reduction's bounds depend on the kept axis (a triangular sum over r < d):
// COM: lanes of d would need different trip counts.
// CHECK-LABEL: pgpu.kernel @triangle
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.foreach
// CHECK: pgpu.range_reduce
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
