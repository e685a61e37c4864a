// RUN: tessel-opt %s -split-input-file -pgpu-form-blocking | FileCheck %s

// COM: A sum over the pixels w of a per-pixel max over the classes c of x[c, w] (NCHW: w contiguous):
// COM: the inner reduction reads along the outer axis, so it becomes its ordered loop over c (one
// COM: order of an associative, commutative max) and the OUTER reduction is blocked: BLOCK lanes of
// COM: consecutive pixels, each trip of the c loop one [BLOCK] load, the max carried lane-wise. Blocking
// COM: the inner one instead left a scalar loop over the pixels (corpus 270: seconds).
// CHECK-LABEL: pgpu.kernel @sum_of_column_max
// CHECK-SAME: covers = "W"
// CHECK: pgpu.region_fold %{{.*}} to %{{.*}} step %{{.*}} identity(%{{.*}} : !pgpu.fragment<f32, [BLOCK]>)
// CHECK: ^bb0(%[[B:[^:]*]]: index, %{{[^:]*}}: index, %[[XV:[^:]*]]: !pgpu.view<f32, [C, W], in>, %[[NC:[^:]*]]: index):
// CHECK: %[[LANES:.*]] = pgpu.iota %[[B]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[MAX:.*]] = pgpu.for %[[C:[^ ]*]] to %[[NC]] step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
// CHECK-NEXT: ^bb0(%[[CI:[^:]*]]: index, %[[M:[^:]*]]: !pgpu.fragment<f32, [BLOCK]>):
// CHECK: %[[V:.*]] = pgpu.load %[[XV]][%[[CI]], %[[LANES]]] {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
// CHECK-NEXT: %[[NEXT:.*]] = pgpu.binary max %[[M]], %[[V]] : !pgpu.fragment<f32, [BLOCK]>
// CHECK-NEXT: pgpu.yield %[[NEXT]]
// CHECK: pgpu.select %{{.*}}, %[[MAX]], %{{.*}}
// CHECK: pgpu.reduce
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @sum_of_column_max(%x: !pgpu.view<f32, [C, W], in>, %out: !pgpu.view<f32, [1], out>) {
    %C = pgpu.extent %x[0] : !pgpu.view<f32, [C, W], in>
    %W = pgpu.extent %x[1] : !pgpu.view<f32, [C, W], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %ninf = arith.constant 0xFF800000 : f32
        %t = arith.constant true
        %s = pgpu.range_reduce %c0 to %W identity(%z : f32) -> (f32) element {
        ^bb0(%w: index):
          %m = pgpu.range_reduce %c0 to %C identity(%ninf : f32) -> (f32) element {
          ^bb0(%c: index):
            %v = pgpu.load %x[%c, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [C, W], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary max %a, %b : f32
            pgpu.yield %r : f32
          }
          pgpu.yield %m : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %r = pgpu.binary add %a, %b : f32
          pgpu.yield %r : f32
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

// COM: Must not fire: the inner reduction reads a row along its own axis (x[w, c], c contiguous: a
// COM: sum of row maxima): the inner one is blocked, as before, and the outer stays a scalar loop.
// CHECK-LABEL: pgpu.kernel @sum_of_row_max
// CHECK: pgpu.range_reduce
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.iota
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @sum_of_row_max(%x: !pgpu.view<f32, [W, C], in>, %out: !pgpu.view<f32, [1], out>) {
    %W = pgpu.extent %x[0] : !pgpu.view<f32, [W, C], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [W, C], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %ninf = arith.constant 0xFF800000 : f32
        %t = arith.constant true
        %s = pgpu.range_reduce %c0 to %W identity(%z : f32) -> (f32) element {
        ^bb0(%w: index):
          %m = pgpu.range_reduce %c0 to %C identity(%ninf : f32) -> (f32) element {
          ^bb0(%c: index):
            %v = pgpu.load %x[%w, %c] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [W, C], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary max %a, %b : f32
            pgpu.yield %r : f32
          }
          pgpu.yield %m : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %r = pgpu.binary add %a, %b : f32
          pgpu.yield %r : f32
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

// COM: A perfect nest of two alike reductions (rows h, pixels w) whose innermost element holds the
// COM: ordered class loop, its bounds the same for every member: one reduction over the product of
// COM: the rows' and pixels' ranges, blocked, the class loop run for each block of lanes.
// CHECK-LABEL: pgpu.kernel @sum_over_rows_and_pixels
// CHECK: %[[HW:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : index
// CHECK: pgpu.for %{{.*}} to %[[HW]] step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.iota
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
// CHECK: pgpu.load {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @sum_over_rows_and_pixels(%x: !pgpu.view<f32, [C, H, W], in>, %out: !pgpu.view<f32, [1], out>) {
    %C = pgpu.extent %x[0] : !pgpu.view<f32, [C, H, W], in>
    %H = pgpu.extent %x[1] : !pgpu.view<f32, [C, H, W], in>
    %W = pgpu.extent %x[2] : !pgpu.view<f32, [C, H, W], in>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %t = arith.constant true
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        %s = pgpu.range_reduce %c0 to %H identity(%z : f32) -> (f32) element {
        ^bb0(%h: index):
          %r = pgpu.range_reduce %c0 to %W identity(%z : f32) -> (f32) element {
          ^bb0(%w: index):
            %m = pgpu.range_reduce %c0 to %C identity(%ninf : f32) -> (f32) element {
            ^bb0(%c: index):
              %v = pgpu.load %x[%c, %h, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [C, H, W], in>[index, index, index] -> f32
              pgpu.yield %v : f32
            } combine {
            ^bb0(%a: f32, %b: f32):
              %q = pgpu.binary max %a, %b : f32
              pgpu.yield %q : f32
            }
            pgpu.yield %m : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %q = pgpu.binary add %a, %b : f32
            pgpu.yield %q : f32
          }
          pgpu.yield %r : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %q = pgpu.binary add %a, %b : f32
          pgpu.yield %q : f32
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

// COM: A foreach over a row's columns w whose body sums a window of rows of the same column (the
// COM: vertical pass of a separable box blur, corpus 348: rows [max(i - 7, 0), min(i + 8, H)), at most
// COM: 15 whatever i): the window's reduction reads along the columns (x[lo + r, w], w contiguous) and
// COM: spans a clipped slice of constant width, so it becomes its ordered loop and the COLUMNS are
// COM: blocked: each trip one [BLOCK] read of consecutive columns. Before: the foreach a scalar loop
// COM: over the columns, each a 512-lane block holding at most 15 rows.
// CHECK-LABEL: pgpu.kernel @window_sums
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[LANES:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[S:.*]] = pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
// CHECK: pgpu.load %x[%{{.*}}, %[[LANES]]] {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: pgpu.store %[[S]], %y[%{{.*}}, %[[LANES]]]
// CHECK-NOT: pgpu.range_reduce
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @window_sums(%x: !pgpu.view<f32, [H, W], in>, %y: !pgpu.view<f32, [H, W], out>) {
    %H = pgpu.extent %x[0] : !pgpu.view<f32, [H, W], in>
    %W = pgpu.extent %x[1] : !pgpu.view<f32, [H, W], in>
    %c0 = arith.constant 0 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    pgpu.program_space (%H) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%H) segment 0 roles ["i"] {
      ^bb0(%i: index):
        %s0 = pgpu.binary sub %i, %c7 : index
        %lo = pgpu.binary max %s0, %c0 : index
        %e0 = pgpu.binary add %i, %c8 : index
        %hi = pgpu.binary min %e0, %H : index
        %d = pgpu.binary sub %hi, %lo : index
        %n = pgpu.binary max %d, %c0 : index
        pgpu.foreach %c0 to %W {
        ^bb0(%w: index):
          %s = pgpu.range_reduce %c0 to %n identity(%z : f32) -> (f32) element {
          ^bb0(%r: index):
            %row = pgpu.binary add %lo, %r : index
            %v = pgpu.load %x[%row, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [H, W], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %q = pgpu.binary add %a, %b : f32
            pgpu.yield %q : f32
          }
          pgpu.store %s, %y[%i, %w] valid %t : i1 : f32, !pgpu.view<f32, [H, W], out>[index, index]
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

// COM: Must not fire: the same column sums over ALL rows [0, H) (a range of unknown length: the foreach
// COM: might be a few columns over a long range): the inner reduction keeps its blocking, the foreach
// COM: stays a loop over its columns.
// CHECK-LABEL: pgpu.kernel @column_sums
// CHECK: pgpu.foreach
// CHECK: pgpu.iota
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: pgpu.reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @column_sums(%x: !pgpu.view<f32, [H, W], in>, %y: !pgpu.view<f32, [W], out>) {
    %H = pgpu.extent %x[0] : !pgpu.view<f32, [H, W], in>
    %W = pgpu.extent %x[1] : !pgpu.view<f32, [H, W], in>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        pgpu.foreach %c0 to %W {
        ^bb0(%w: index):
          %s = pgpu.range_reduce %c0 to %H identity(%z : f32) -> (f32) element {
          ^bb0(%r: index):
            %v = pgpu.load %x[%r, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [H, W], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %q = pgpu.binary add %a, %b : f32
            pgpu.yield %q : f32
          }
          pgpu.store %s, %y[%w] valid %t : i1 : f32, !pgpu.view<f32, [W], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
