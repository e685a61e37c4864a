// RUN: tessel-opt %s -split-input-file -pgpu-refine-mapping | FileCheck %s

// COM: A per-element workset: each program now owns BLOCK_P consecutive members of the innermost
// COM: axis. The group's innermost extent and the program space become ceil(E / BLOCK_P) (LaunchExpr),
// COM: and the body runs in a foreach over [c * BLOCK_P, min(c * BLOCK_P + BLOCK_P, E)).
// CHECK-LABEL: pgpu.kernel @scale
// CHECK-SAME: #pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>
// CHECK: %[[N:.*]] = pgpu.extent %x[0]
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[G:.*]] = pgpu.ceil_div %[[N]], %[[BP]] : index
// CHECK: pgpu.program_space(%[[G]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[G]]) segment 0
// CHECK-NEXT: ^bb0(%[[C:.*]]: index):
// CHECK: %[[LO:.*]] = pgpu.binary mul %[[C]], %[[BP]] : index
// CHECK: %[[END:.*]] = pgpu.binary add %[[LO]], %[[BP]] : index
// CHECK: %[[HI:.*]] = pgpu.binary min %[[END]], %[[N]] : index
// CHECK: pgpu.foreach %[[LO]] to %[[HI]] {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK: pgpu.load %x[%[[I]]]
// CHECK: pgpu.store %{{.*}}, %y[%[[I]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scale(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>, %s: f32) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space (%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["n"] {
      ^bb0(%n: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %v = pgpu.load %x[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %w = pgpu.binary mul %v, %s : f32
        pgpu.store %w, %y[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a body with a loop (a row reduction) keeps one instance per program.
// CHECK-LABEL: pgpu.kernel @rows
// CHECK-NOT: BLOCK_P
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rows(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %c = pgpu.binary add %a, %b : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %y[%m] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A scatter-reduce's region is its pure combine, not control: the per-element scatter-add
// COM: workset is refined like any other (its collisions combine whichever program adds them).
// CHECK-LABEL: pgpu.kernel @scatter_add
// CHECK-SAME: #pgpu.param<"BLOCK_P"
// CHECK: pgpu.foreach
// CHECK: pgpu.scatter_reduce
// CHECK: pgpu.binary add
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scatter_add(%g: !pgpu.view<f32, [T], in>, %ids: !pgpu.view<i32, [T], in>, %w: !pgpu.view<f32, [V], inout>) {
    %T = pgpu.extent %g[0] : !pgpu.view<f32, [T], in>
    pgpu.program_space (%T) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%T) segment 0 roles ["t"] {
      ^bb0(%t: index):
        %z = arith.constant 0.0 : f32
        %zi = arith.constant 0 : i32
        %true = arith.constant true
        %v = pgpu.load %g[%t] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [T], in>[index] -> f32
        %id = pgpu.load %ids[%t] valid %true : i1 fill %zi : i32 : !pgpu.view<i32, [T], in>[index] -> i32
        %row = pgpu.cast %id : i32 to index
        pgpu.scatter_reduce %v, %w[%row] valid %true : i1 : f32, !pgpu.view<f32, [V], inout>[index] {
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

// COM: Several axes: programs own BLOCK_P consecutive members of the row-major order over all of
// COM: them, ceil(T * D / BLOCK_P) programs, and each member's coordinates are decoded from its
// COM: linear position (l rem D, l div D), so a block spans rows when D is small.
// CHECK-LABEL: pgpu.kernel @scatter_rows
// CHECK: %[[T:.*]] = pgpu.extent %g[0]
// CHECK: %[[D:.*]] = pgpu.extent %g[1]
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[MEMBERS:.*]] = pgpu.binary mul %[[T]], %[[D]] : index
// CHECK: %[[G:.*]] = pgpu.ceil_div %[[MEMBERS]], %[[BP]] : index
// CHECK: pgpu.program_space(%[[G]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[G]]) segment 0 roles ["t*d"] {
// CHECK-NEXT: ^bb0(%[[C:.*]]: index):
// CHECK: %[[LO:.*]] = pgpu.binary mul %[[C]], %[[BP]] : index
// CHECK: %[[END:.*]] = pgpu.binary add %[[LO]], %[[BP]] : index
// CHECK: %[[HI:.*]] = pgpu.binary min %[[END]], %[[MEMBERS]] : index
// CHECK: pgpu.foreach %[[LO]] to %[[HI]] {
// CHECK-NEXT: ^bb0(%[[L:.*]]: index):
// CHECK-NEXT: %[[COL:.*]] = pgpu.binary rem %[[L]], %[[D]] : index
// CHECK-NEXT: %[[ROW:.*]] = pgpu.binary div %[[L]], %[[D]] : index
// CHECK: pgpu.load %g[%[[ROW]], %[[COL]]]
// CHECK: pgpu.load %ids[%[[ROW]]]
// CHECK: pgpu.scatter_reduce %{{.*}}, %w[%{{.*}}, %[[COL]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scatter_rows(%g: !pgpu.view<f32, [T, D], in>, %ids: !pgpu.view<i32, [T], in>,
                            %w: !pgpu.view<f32, [V, D], inout>) {
    %T = pgpu.extent %g[0] : !pgpu.view<f32, [T, D], in>
    %D = pgpu.extent %g[1] : !pgpu.view<f32, [T, D], in>
    %n = pgpu.binary mul %T, %D : index
    pgpu.program_space (%n) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%T, %D) segment 0 roles ["t", "d"] {
      ^bb0(%t: index, %d: index):
        %z = arith.constant 0.0 : f32
        %zi = arith.constant 0 : i32
        %true = arith.constant true
        %v = pgpu.load %g[%t, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [T, D], in>[index, index] -> f32
        %id = pgpu.load %ids[%t] valid %true : i1 fill %zi : i32 : !pgpu.view<i32, [T], in>[index] -> i32
        %row = pgpu.cast %id : i32 to index
        pgpu.scatter_reduce %v, %w[%row, %d] valid %true : i1 : f32, !pgpu.view<f32, [V, D], inout>[index, index] {
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

// COM: A per-element group under construction's dispatch guard pid < N, followed by a last-program
// COM: finalization: each program still takes BLOCK_P members, and the program space keeps at least
// COM: one instance (max(ceil(N / BLOCK_P), 1)) so the finalization runs when N = 0; the guard keeps
// COM: that instance out of the group.
// CHECK-LABEL: pgpu.kernel @count
// CHECK: %[[G:.*]] = pgpu.ceil_div %{{.*}}, %{{.*}} : index
// CHECK: %[[ONE:.*]] = pgpu.binary max %[[G]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[ONE]]) {
// CHECK: pgpu.if %{{.*}} {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[G]]) segment 0
// CHECK: pgpu.foreach
// CHECK: pgpu.scatter_reduce
// CHECK: pgpu.last_program
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @count(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [B], out>,
                     %part: !pgpu.buffer<i32, [B], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32},
                     %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32}) {
    %N = pgpu.extent %x[0] : !pgpu.view<i32, [N], in>
    %c1 = arith.constant 1 : index
    %total = pgpu.binary max %N, %c1 : index
    pgpu.program_space (%total) {
    ^bb0(%pid: index):
      %inside = pgpu.cmp lt %pid, %N : index
      pgpu.if %inside {
        pgpu.execution_group %pid extents(%N) segment 0 roles ["axis0"] {
        ^bb0(%i: index):
          %t = arith.constant true
          %z = arith.constant 0 : i32
          %one = arith.constant 1 : i32
          %v = pgpu.load %x[%i] valid %t : i1 fill %z : i32 : !pgpu.view<i32, [N], in>[index] -> i32
          %bin = pgpu.cast %v : i32 to index
          pgpu.scatter_reduce %one, %part[%bin] valid %t : i1 : i32, !pgpu.buffer<i32, [B], workspace>[index] {
          ^bb0(%a: i32, %b: i32):
            %s = pgpu.binary add %a, %b : i32
            pgpu.yield %s : i32
          }
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: An ordered loop per member whose bounds every member shares (a recurrence over time per
// COM: channel, CarriedTensors.cpp) is per-element work: refined, with the smaller BLOCK_P domain of
// COM: members that each walk a loop reading their own values each step (x[i, c]; form-blocking makes
// COM: them one block of lanes).
// CHECK-LABEL: pgpu.kernel @recurrence
// CHECK-SAME: #pgpu.param<"BLOCK_P", [16, 32, 64, 128, 256, 512, 1024], 64>
// CHECK: pgpu.foreach
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @recurrence(%x: !pgpu.view<f32, [T, C], in>, %y: !pgpu.view<f32, [T, C], out>) {
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T, C], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [T, C], in>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    pgpu.program_space (%C) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%C) segment 0 roles ["c"] {
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
    pgpu.return
  }
}

// -----

// COM: An ordered loop per member that reads only values every member shares (Horner's rule over
// COM: runtime coefficients c[P - 1 - j]): refined like elementwise work, with the elementwise BLOCK_P
// COM: domain (each coefficient read then serves a wide block of lanes), not the recurrence's 16..1024.
// CHECK-LABEL: pgpu.kernel @shared_reads
// CHECK-SAME: #pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>
// CHECK: pgpu.foreach
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.load %c[
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @shared_reads(%x: !pgpu.view<f32, [N], in>, %c: !pgpu.view<f32, [P], in>, %y: !pgpu.view<f32, [N], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %P = pgpu.extent %c[0] : !pgpu.view<f32, [P], in>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    pgpu.program_space (%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["n"] {
      ^bb0(%n: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %v = pgpu.load %x[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %h = pgpu.for %c0 to %P step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%j: index, %acc: f32):
          %last = pgpu.binary sub %P, %c1 : index
          %k = pgpu.binary sub %last, %j : index
          %cj = pgpu.load %c[%k] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [P], in>[index] -> f32
          %m = pgpu.binary mul %acc, %v : f32
          %s = pgpu.binary add %m, %cj : f32
          pgpu.yield %s : f32
        }
        pgpu.store %h, %y[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the loop's trip count depends on the member (its own row length), so a block
// COM: of members would not share one loop.
// CHECK-LABEL: pgpu.kernel @ragged
// CHECK-NOT: BLOCK_P
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @ragged(%x: !pgpu.view<f32, [T, C], in>, %y: !pgpu.view<f32, [T, C], out>) {
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T, C], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [T, C], in>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    pgpu.program_space (%C) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%C) segment 0 roles ["c"] {
      ^bb0(%c: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %n = pgpu.binary min %c, %T : index
        %h = pgpu.for %c0 to %n step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %v = pgpu.load %x[%i, %c] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T, C], in>[index, index] -> f32
          %s = pgpu.binary add %acc, %v : f32
          pgpu.store %s, %y[%i, %c] valid %t : i1 : f32, !pgpu.view<f32, [T, C], out>[index, index]
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

// COM: Row loops (rotate-half's two halves of a row, each a foreach over a range every row shares):
// COM: each program owns BLOCK_P consecutive members of each loop over all rows, so rows of 64 fill
// COM: a program's blocks. The programs cover the longer loop, ceil(max(M * n0, M * n1) / BLOCK_P);
// COM: a member's column is its remainder by the loop's range (plus the loop's start) and its row
// COM: the quotient.
// CHECK-LABEL: pgpu.kernel @halves
// CHECK-SAME: #pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>
// CHECK: %[[H:.*]] = pgpu.extent %c[0]
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[T0:.*]] = pgpu.binary mul %[[M:.*]], %[[H]] : index
// CHECK: %[[N1:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : index
// CHECK: %[[T1:.*]] = pgpu.binary mul %[[M]], %[[N1]] : index
// CHECK: %[[LONG:.*]] = pgpu.binary max %[[T0]], %[[T1]] : index
// CHECK: %[[G:.*]] = pgpu.ceil_div %[[LONG]], %[[BP]] : index
// CHECK: pgpu.program_space(%[[G]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[G]]) segment 0 roles ["m"]
// CHECK-NEXT: ^bb0(%[[C:.*]]: index):
// CHECK: %[[LO:.*]] = pgpu.binary mul %[[C]], %[[BP]] : index
// CHECK: %[[END:.*]] = pgpu.binary add %[[LO]], %[[BP]] : index
// CHECK: %[[HI0:.*]] = pgpu.binary min %[[END]], %[[T0]] : index
// CHECK: pgpu.foreach %[[LO]] to %[[HI0]] {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK-NEXT: %[[COL:.*]] = pgpu.binary rem %[[I]], %[[H]] : index
// CHECK-NEXT: %[[ROW:.*]] = pgpu.binary div %[[I]], %[[H]] : index
// CHECK: pgpu.store %{{.*}}, %y[%[[ROW]], %[[COL]]]
// CHECK: %[[HI1:.*]] = pgpu.binary min %[[END]], %[[T1]] : index
// CHECK: pgpu.foreach %[[LO]] to %[[HI1]] {
// CHECK-NEXT: ^bb0(%[[J:.*]]: index):
// CHECK-NEXT: %[[COL1:.*]] = pgpu.binary rem %[[J]], %[[N1]] : index
// CHECK-NEXT: %[[ROW1:.*]] = pgpu.binary div %[[J]], %[[N1]] : index
// CHECK-NEXT: %[[AT:.*]] = pgpu.binary add %[[H]], %[[COL1]] : index
// CHECK: pgpu.store %{{.*}}, %y[%[[ROW1]], %[[AT]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @halves(%x: !pgpu.view<f32, [M, D], in>, %c: !pgpu.view<f32, [H], in>, %y: !pgpu.view<f32, [M, D], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, D], in>
    %D = pgpu.extent %x[1] : !pgpu.view<f32, [M, D], in>
    %H = pgpu.extent %c[0] : !pgpu.view<f32, [H], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %H {
        ^bb0(%i: index):
          %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
          %w = pgpu.load %c[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [H], in>[index] -> f32
          %p0 = pgpu.binary mul %v, %w : f32
          pgpu.store %p0, %y[%m, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, D], out>[index, index]
          pgpu.yield
        }
        pgpu.foreach %H to %D {
        ^bb0(%i: index):
          %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
          pgpu.store %v, %y[%m, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, D], out>[index, index]
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

// COM: Must not fire: the second loop reads the view the first writes (its members would need the
// COM: first loop's members of the same row, which another program may own).
// CHECK-LABEL: pgpu.kernel @chained
// CHECK-NOT: BLOCK_P
// CHECK: pgpu.program_space(%[[M:.*]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[M]])
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @chained(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>, %o: !pgpu.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.store %v, %y[%m, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          %v = pgpu.load %y[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], out>[index, index] -> f32
          pgpu.store %v, %o[%m, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Row loops over member-dependent slices in two segments (a packed row's heads: head h reads
// COM: columns [h * D, h * D + W) clipped to the row, construction's max(min(e, C) - max(s, 0), 0)):
// COM: the slice holds at most W = e - s members, so each loop's members over all rows are T * H * W
// COM: (T * G * W in segment 1), a column's lane is valid where it lies in its row's clipped slice,
// COM: and each segment's program count replaces its product of extents in the dispatch chain and
// COM: the space's total.
// CHECK-LABEL: pgpu.kernel @heads
// CHECK-SAME: #pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[R0:.*]] = pgpu.binary mul %[[T:.*]], %[[H:.*]] : index
// CHECK: %[[W0:.*]] = pgpu.binary max %[[W:.*]], %c0{{.*}} : index
// CHECK: %[[N0:.*]] = pgpu.binary mul %[[R0]], %[[W0]] : index
// CHECK: %[[P0:.*]] = pgpu.ceil_div %[[N0]], %[[BP]] : index
// CHECK: %[[R1:.*]] = pgpu.binary mul %[[T]], %[[G:.*]] : index
// CHECK: %[[N1:.*]] = pgpu.binary mul %[[R1]], %{{.*}} : index
// CHECK: %[[P1:.*]] = pgpu.ceil_div %[[N1]], %[[BP]] : index
// CHECK: %[[ALL:.*]] = pgpu.binary add %[[P0]], %[[P1]] : index
// CHECK: pgpu.program_space(%[[ALL]]) {
// CHECK: pgpu.cmp lt %{{.*}}, %[[P0]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[P0]]) segment 0 roles ["t*h"]
// CHECK: pgpu.foreach
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK-NEXT: %[[COL:.*]] = pgpu.binary rem %[[I]], %[[W0]] : index
// CHECK-NEXT: %[[REST:.*]] = pgpu.binary div %[[I]], %[[W0]] : index
// CHECK-NEXT: %[[HEAD:.*]] = pgpu.binary rem %[[REST]], %[[H]] : index
// CHECK-NEXT: %[[ROW:.*]] = pgpu.binary div %[[REST]], %[[H]] : index
// CHECK: %[[IN:.*]] = pgpu.cmp lt %[[COL]], %{{.*}} : index
// CHECK: %[[OK:.*]] = pgpu.binary and %{{.*}}, %[[IN]] : i1
// CHECK: pgpu.load %x[%[[ROW]], %{{.*}}] valid %[[OK]]
// CHECK: %[[OK2:.*]] = pgpu.binary and %{{.*}}, %[[IN]] : i1
// CHECK: pgpu.store %{{.*}}, %q[%[[HEAD]], %[[ROW]], %[[COL]]] valid %[[OK2]]
// CHECK: pgpu.binary sub %{{.*}}, %[[P0]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[P1]]) segment 1 roles ["t*g"]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @heads(%x: !pgpu.view<f32, [T, C], in>, %q: !pgpu.view<f32, [H, T, W], out>, %k: !pgpu.view<f32, [G, T, W], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T, C], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [T, C], in>
    %H = pgpu.extent %q[0] : !pgpu.view<f32, [H, T, W], out>
    %W = pgpu.extent %q[2] : !pgpu.view<f32, [H, T, W], out>
    %G = pgpu.extent %k[0] : !pgpu.view<f32, [G, T, W], out>
    %s0 = pgpu.binary mul %T, %H : index
    %s1 = pgpu.binary mul %T, %G : index
    %all = pgpu.binary add %s0, %s1 : index
    pgpu.program_space (%all) {
    ^bb0(%p: index):
      %first = pgpu.cmp lt %p, %s0 : index
      pgpu.if %first {
        pgpu.execution_group %p extents(%T, %H) segment 0 roles ["t", "h"] {
        ^bb0(%r: index, %h: index):
          %b = pgpu.binary mul %h, %W : index
          %e = pgpu.binary add %b, %W : index
          %lo = pgpu.binary max %b, %c0 : index
          %hi = pgpu.binary min %e, %C : index
          %d = pgpu.binary sub %hi, %lo : index
          %n = pgpu.binary max %d, %c0 : index
          pgpu.foreach %c0 to %n {
          ^bb0(%i: index):
            %at = pgpu.binary add %lo, %i : index
            %v = pgpu.load %x[%r, %at] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T, C], in>[index, index] -> f32
            pgpu.store %v, %q[%h, %r, %i] valid %t : i1 : f32, !pgpu.view<f32, [H, T, W], out>[index, index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } else {
        %p1 = pgpu.binary sub %p, %s0 : index
        pgpu.execution_group %p1 extents(%T, %G) segment 1 roles ["t", "g"] {
        ^bb0(%r: index, %g: index):
          %hg = pgpu.binary add %H, %g : index
          %b = pgpu.binary mul %hg, %W : index
          %e = pgpu.binary add %b, %W : index
          %lo = pgpu.binary max %b, %c0 : index
          %hi = pgpu.binary min %e, %C : index
          %d = pgpu.binary sub %hi, %lo : index
          %n = pgpu.binary max %d, %c0 : index
          pgpu.foreach %c0 to %n {
          ^bb0(%i: index):
            %at = pgpu.binary add %lo, %i : index
            %v = pgpu.load %x[%r, %at] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T, C], in>[index, index] -> f32
            pgpu.store %v, %k[%g, %r, %i] valid %t : i1 : f32, !pgpu.view<f32, [G, T, W], out>[index, index, index]
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

// COM: Must not fire: a loop whose range depends on the member but is no clipped slice (its length
// COM: is the member times a stride: no launch-time bound), beside a second segment of row loops.
// CHECK-LABEL: pgpu.kernel @grown
// CHECK-NOT: BLOCK_P
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @grown(%x: !pgpu.view<f32, [T, C], in>, %q: !pgpu.view<f32, [H, T, C], out>, %k: !pgpu.view<f32, [G, T, C], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T, C], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [T, C], in>
    %H = pgpu.extent %q[0] : !pgpu.view<f32, [H, T, C], out>
    %G = pgpu.extent %k[0] : !pgpu.view<f32, [G, T, C], out>
    %s0 = pgpu.binary mul %T, %H : index
    %s1 = pgpu.binary mul %T, %G : index
    %all = pgpu.binary add %s0, %s1 : index
    pgpu.program_space (%all) {
    ^bb0(%p: index):
      %first = pgpu.cmp lt %p, %s0 : index
      pgpu.if %first {
        pgpu.execution_group %p extents(%T, %H) segment 0 roles ["t", "h"] {
        ^bb0(%r: index, %h: index):
          %n = pgpu.binary mul %h, %r : index
          pgpu.foreach %c0 to %n {
          ^bb0(%i: index):
            %v = pgpu.load %x[%r, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T, C], in>[index, index] -> f32
            pgpu.store %v, %q[%h, %r, %i] valid %t : i1 : f32, !pgpu.view<f32, [H, T, C], out>[index, index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } else {
        %p1 = pgpu.binary sub %p, %s0 : index
        pgpu.execution_group %p1 extents(%T, %G) segment 1 roles ["t", "g"] {
        ^bb0(%r: index, %g: index):
          pgpu.foreach %c0 to %C {
          ^bb0(%i: index):
            %v = pgpu.load %x[%r, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T, C], in>[index, index] -> f32
            pgpu.store %v, %k[%g, %r, %i] valid %t : i1 : f32, !pgpu.view<f32, [G, T, C], out>[index, index, index]
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

// COM: Pure index code beside row loops of one range (a 2x2 pool's input rows 2 * i and 2 * i + 1):
// COM: each program owns BLOCK_P consecutive members over all rows, the index code recomputed per member
// COM: from its decoded row, so short rows (56 outputs) fill a program's blocks.
// CHECK-LABEL: pgpu.kernel @pooled
// CHECK-SAME: #pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[T:.*]] = pgpu.binary mul %[[OH:.*]], %[[OW:.*]] : index
// CHECK: %[[G:.*]] = pgpu.ceil_div %{{.*}}, %[[BP]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[G]]) segment 0 roles ["i"]
// CHECK: pgpu.foreach
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK-NEXT: %[[COL:.*]] = pgpu.binary rem %[[I]], %[[OW]] : index
// CHECK-NEXT: %[[ROW:.*]] = pgpu.binary div %[[I]], %[[OW]] : index
// CHECK-NEXT: %[[TOP:.*]] = pgpu.binary mul %c2, %[[ROW]] : index
// CHECK-NEXT: %[[BOT:.*]] = pgpu.binary add %[[TOP]], %c1 : index
// CHECK: pgpu.load %x[%[[TOP]], %{{.*}}]
// CHECK: pgpu.load %x[%[[BOT]], %{{.*}}]
// CHECK: pgpu.store %{{.*}}, %y[%[[ROW]], %[[COL]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @pooled(%x: !pgpu.view<f32, [H, W], in>, %y: !pgpu.view<f32, [OH, OW], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %OH = pgpu.extent %y[0] : !pgpu.view<f32, [OH, OW], out>
    %OW = pgpu.extent %y[1] : !pgpu.view<f32, [OH, OW], out>
    pgpu.program_space (%OH) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%OH) segment 0 roles ["i"] {
      ^bb0(%i: index):
        %top = pgpu.binary mul %c2, %i : index
        %bot = pgpu.binary add %top, %c1 : index
        pgpu.foreach %c0 to %OW {
        ^bb0(%j: index):
          %w = pgpu.binary mul %c2, %j : index
          %a = pgpu.load %x[%top, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [H, W], in>[index, index] -> f32
          %b = pgpu.load %x[%bot, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [H, W], in>[index, index] -> f32
          %m = pgpu.binary max %a, %b : f32
          pgpu.store %m, %y[%i, %j] valid %t : i1 : f32, !pgpu.view<f32, [OH, OW], out>[index, index]
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

// COM: Must not fire: a row's own value (its bias) read beside a loop over a range every row shares:
// COM: one row a program keeps the bias a scalar (row code comes along only with a member-dependent
// COM: slice whose range it computes).
// CHECK-LABEL: pgpu.kernel @biased
// CHECK-NOT: BLOCK_P
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["m"]
// CHECK: pgpu.load %b[%{{.*}}]
// CHECK: pgpu.foreach %c0 to %{{.*}} {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @biased(%x: !pgpu.view<f32, [M, N], in>, %b: !pgpu.view<f32, [M], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %bias = pgpu.load %b[%m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M], in>[index] -> f32
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %s = pgpu.binary add %v, %bias : f32
          pgpu.store %s, %y[%m, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Row loops updating their view in place (rotate-half's x[m, i] and x[m, H + i] read, then
// COM: written, in construction's one element loop) beside a row's index read that only selects the
// COM: table row others gather (c[pos[m], i]): the loop's members over all rows are independent, so
// COM: each program owns BLOCK_P of them; the index read comes along per member, from its decoded row.
// CHECK-LABEL: pgpu.kernel @inplace_rows
// CHECK-SAME: #pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[N:.*]] = pgpu.binary mul %[[M:.*]], %[[H:.*]] : index
// CHECK: %[[G:.*]] = pgpu.ceil_div %[[N]], %[[BP]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[G]]) segment 0 roles ["m"]
// CHECK: pgpu.foreach
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK-NEXT: %[[COL:.*]] = pgpu.binary rem %[[I]], %[[H]] : index
// CHECK-NEXT: %[[ROW:.*]] = pgpu.binary div %[[I]], %[[H]] : index
// CHECK-NEXT: %[[P:.*]] = pgpu.load %pos[%[[ROW]]]
// CHECK-NEXT: %[[PI:.*]] = pgpu.cast %[[P]] : i32 to index
// CHECK: pgpu.load %x[%[[ROW]], %[[COL]]]
// CHECK: pgpu.gather %c[%[[PI]], %[[COL]]]
// CHECK: pgpu.store %{{.*}}, %x[%[[ROW]], %[[COL]]]
// CHECK: pgpu.store %{{.*}}, %x[%[[ROW]], %{{.*}}]
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @inplace_rows(%x: !pgpu.view<f32, [M, D], inout>, %c: !pgpu.view<f32, [P, H], in>, %pos: !pgpu.view<i32, [M], in>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %zi = arith.constant 0 : i32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, D], inout>
    %H = pgpu.extent %c[1] : !pgpu.view<f32, [P, H], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %r = pgpu.load %pos[%m] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [M], in>[index] -> i32
        %ri = pgpu.cast %r : i32 to index
        pgpu.foreach %c0 to %H {
        ^bb0(%i: index):
          %hi = pgpu.binary add %H, %i : index
          %a = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, D], inout>[index, index] -> f32
          %w = pgpu.gather %c[%ri, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [P, H], in>[index, index] -> f32
          %b = pgpu.load %x[%m, %hi] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, D], inout>[index, index] -> f32
          %lo = pgpu.binary mul %a, %w : f32
          %up = pgpu.binary mul %b, %w : f32
          pgpu.store %lo, %x[%m, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, D], inout>[index, index]
          pgpu.store %up, %x[%m, %hi] valid %t : i1 : f32, !pgpu.view<f32, [M, D], inout>[index, index]
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

// COM: Must not fire: a view updated in place by two loops (the second reads what the first wrote:
// COM: its members would need the first loop's members of the same row, which another program may
// COM: own); and a row's index read that places a store (out[pos[m], i]) rather than selecting a read.
// CHECK-LABEL: pgpu.kernel @inplace_two_loops
// CHECK-NOT: BLOCK_P
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["m"]
// CHECK: pgpu.foreach %c0 to %{{.*}} {
// CHECK-LABEL: pgpu.kernel @placed_rows
// CHECK-NOT: BLOCK_P
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["m"]
// CHECK: pgpu.load %pos[%{{.*}}]
// CHECK: pgpu.foreach %c0 to %{{.*}} {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @inplace_two_loops(%x: !pgpu.view<f32, [M, N], inout>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], inout>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], inout>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], inout>[index, index] -> f32
          %d = pgpu.binary add %v, %v : f32
          pgpu.store %d, %x[%m, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], inout>[index, index]
          pgpu.yield
        }
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], inout>[index, index] -> f32
          %d = pgpu.binary mul %v, %v : f32
          pgpu.store %d, %x[%m, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], inout>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }

  pgpu.kernel @placed_rows(%x: !pgpu.view<f32, [M, N], in>, %pos: !pgpu.view<i32, [M], in>, %y: !pgpu.view<f32, [R, N], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %zi = arith.constant 0 : i32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %r = pgpu.load %pos[%m] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [M], in>[index] -> i32
        %ri = pgpu.cast %r : i32 to index
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.scatter %v, %y[%ri, %i] valid %t : i1 : f32, !pgpu.view<f32, [R, N], out>[index, index]
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

// COM: A per-element segment beside a kernel-level reduction's one instance (construction's chain:
// COM: pid < 1 runs the axis-less group, the rest the elementwise store): the elementwise segment
// COM: takes BLOCK_P members a program as a sole group would, its count replacing N in the space's
// COM: total (1 + ceil(N / BLOCK_P)); the reduction's segment and its bound stay as they were.
// CHECK-LABEL: pgpu.kernel @loss_and_grad
// CHECK-SAME: #pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>
// CHECK: %[[N:.*]] = pgpu.extent %p[0]
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[G:.*]] = pgpu.ceil_div %[[N]], %[[BP]] : index
// CHECK: %[[T:.*]] = pgpu.binary add %[[C1]], %[[G]] : index
// CHECK: pgpu.program_space(%[[T]]) {
// CHECK: %[[FIRST:.*]] = pgpu.cmp lt %{{.*}}, %[[ONE:.*]] : index
// CHECK: pgpu.if %[[FIRST]] {
// CHECK: pgpu.execution_group %{{.*}} extents() segment 0
// CHECK: pgpu.range_reduce
// CHECK: } else {
// CHECK: %[[R:.*]] = pgpu.binary sub %{{.*}}, %[[ONE]] : index
// CHECK: pgpu.execution_group %[[R]] extents(%[[G]]) segment 1 roles ["n"]
// CHECK-NEXT: ^bb0(%[[C:.*]]: index):
// CHECK: %[[LO:.*]] = pgpu.binary mul %[[C]], %[[BP]] : index
// CHECK: %[[END:.*]] = pgpu.binary add %[[LO]], %[[BP]] : index
// CHECK: %[[HI:.*]] = pgpu.binary min %[[END]], %[[N]] : index
// CHECK: pgpu.foreach %[[LO]] to %[[HI]] {
// CHECK: pgpu.store %{{.*}}, %g[%{{.*}}]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @loss_and_grad(%p: !pgpu.view<f32, [N], in>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], in>
    %all = pgpu.binary add %c1, %N : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %p[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %c = pgpu.binary add %a, %b : f32
            pgpu.yield %c : f32
          }
          pgpu.store %s, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%N) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %v = pgpu.load %p[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %w = pgpu.binary add %v, %v : f32
          pgpu.store %w, %g[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: Must not fire: two segments, neither per-element (a kernel-level reduction's one instance
// COM: beside a row reduction per program): every segment keeps its programs.
// CHECK-LABEL: pgpu.kernel @loss_and_rows
// CHECK-NOT: BLOCK_P
// CHECK: pgpu.program_space(%{{.*}}) {
// CHECK-NOT: pgpu.foreach
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @loss_and_rows(%p: !pgpu.view<f32, [M, N], in>, %l: !pgpu.view<f32, [1], out>, %r: !pgpu.view<f32, [M], out>) {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %M = pgpu.extent %p[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %p[1] : !pgpu.view<f32, [M, N], in>
    %all = pgpu.binary add %c1, %M : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %p[%c0, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %c = pgpu.binary add %a, %b : f32
            pgpu.yield %c : f32
          }
          pgpu.store %s, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%M) segment 1 roles ["m"] {
        ^bb0(%m: index):
          %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %p[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %c = pgpu.binary add %a, %b : f32
            pgpu.yield %c : f32
          }
          pgpu.store %s, %r[%m] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
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

// COM: Must not fire: row loops where a workspace buffer is both written (the member's counts added
// COM: into its row) and read (the row copied out after): the second loop needs the first loop's work
// COM: on the same row, which another program's schedule of members would not have done. One member
// COM: a program stays.
// CHECK-LABEL: pgpu.kernel @counted_rows
// CHECK-NOT: BLOCK_P
// CHECK: pgpu.execution_group %{{.*}} extents(%[[B:.*]]) segment 0 roles ["r"]
// CHECK-NEXT: ^bb0(%[[R:.*]]: index):
// CHECK: pgpu.foreach %{{.*}} to %{{.*}} {
// CHECK: pgpu.scatter_reduce %{{.*}}, %ws[%[[R]], %{{.*}}]
// CHECK: pgpu.foreach %{{.*}} to %{{.*}} {
// CHECK: pgpu.buffer_load %ws[%[[R]], %{{.*}}]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @counted_rows(%x: !pgpu.view<i32, [B, L], in>, %h: !pgpu.view<i32, [B, 256], out>,
                            %ws: !pgpu.buffer<i32, [B, 256], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32, pgpu.kept}) {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %t = arith.constant true
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %B = pgpu.extent %x[0] : !pgpu.view<i32, [B, L], in>
    %L = pgpu.extent %x[1] : !pgpu.view<i32, [B, L], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%B) segment 0 roles ["r"] {
      ^bb0(%r: index):
        pgpu.foreach %c0 to %L {
        ^bb0(%s: index):
          %v = pgpu.load %x[%r, %s] valid %t : i1 fill %zero : i32 : !pgpu.view<i32, [B, L], in>[index, index] -> i32
          %bin = pgpu.cast %v : i32 to index
          pgpu.scatter_reduce %one, %ws[%r, %bin] valid %t : i1 : i32, !pgpu.buffer<i32, [B, 256], workspace>[index, index] {
          ^bb0(%a: i32, %b: i32):
            %s2 = pgpu.binary add %a, %b : i32
            pgpu.yield %s2 : i32
          }
          pgpu.yield
        }
        pgpu.foreach %c0 to %c256 {
        ^bb0(%k: index):
          %n = pgpu.buffer_load %ws[%r, %k] valid %t : i1 fill %zero : i32 : !pgpu.buffer<i32, [B, 256], workspace>[index, index] -> i32
          pgpu.buffer_store %zero, %ws[%r, %k] valid %t : i1 : i32, !pgpu.buffer<i32, [B, 256], workspace>[index, index]
          pgpu.store %n, %h[%r, %k] valid %t : i1 : i32, !pgpu.view<i32, [B, 256], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
