// RUN: tessel-opt %s -split-input-file -pgpu-pack-rows | FileCheck %s

// COM: A reduction over members whose element reduces a row gathered through an index read per member
// COM: (222_bpr_loss's sum over triples of f(<U[u], I[p] - I[n]>), here f(sum x[idx[t], :]^2)): where the
// COM: walk's range fits one block (0 < D <= BLOCK) the members run ROWS a step: the [ROWS] indices read as
// COM: a vector, the rows gathered as a [ROWS, BLOCK] tile and reduced over axis 1, the scalar code after
// COM: the walk on [ROWS], members past the range the identity, reduced over axis 0 into the carry. The
// COM: reduction as it was otherwise. BLOCK, which covered no one symbol, covers the walk's D.
// CHECK-LABEL: pgpu.kernel @gathered_total
// CHECK-SAME: #pgpu.param<"BLOCK", [16, 32, 64, 128, 256], 64, covers = "D">
// CHECK-SAME: #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>
// CHECK: %[[ROWS:.*]] = pgpu.param "ROWS" : index
// CHECK: %[[TOTAL:.*]] = pgpu.if %{{.*}} -> f32 {
// CHECK: %[[LOOP:.*]] = pgpu.for %c0 to %[[N:.*]] step %[[ROWS]] iter_args(%{{.*}} : f32) -> f32 {
// CHECK: ^bb0(%[[FIRST:.*]]: index, %[[ACC:.*]]: f32):
// CHECK: %[[T:.*]] = pgpu.iota %[[FIRST]] : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LIVE:.*]] = pgpu.cmp lt %[[T]], %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[I:.*]] = pgpu.load %idx[%[[T]]] valid %{{.*}} -> !pgpu.fragment<i32, [ROWS]>
// CHECK: pgpu.gather %x[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [ROWS, BLOCK]> {{.*}} -> !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: pgpu.reduce %{{.*}} axes [1] {{.*}} -> (!pgpu.fragment<f32, [ROWS]>)
// CHECK: %[[E:.*]] = pgpu.unary exp %{{.*}} : !pgpu.fragment<f32, [ROWS]>
// CHECK: %[[KEPT:.*]] = pgpu.select %[[LIVE]], %[[E]], %{{.*}} : !pgpu.fragment<i1, [ROWS]>, !pgpu.fragment<f32, [ROWS]>
// CHECK: %[[PART:.*]] = pgpu.reduce %[[KEPT]] axes [0] {{.*}} -> (f32)
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[ACC]], %[[PART]] : f32
// CHECK: pgpu.yield %[[NEXT]] : f32
// CHECK: pgpu.yield %[[LOOP]] : f32
// CHECK: } else {
// CHECK: %[[OLD:.*]] = pgpu.range_reduce %c0 to %[[N]]
// CHECK: pgpu.yield %[[OLD]] : f32
// CHECK: pgpu.store %[[TOTAL]], %out
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @gathered_total(%x: !pgpu.view<f32, [M, D], in>, %idx: !pgpu.view<i32, [N], in>, %out: !pgpu.view<f32, [1], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 64>]} {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %zi = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = pgpu.extent %idx[0] : !pgpu.view<i32, [N], in>
    %d = pgpu.extent %x[1] : !pgpu.view<f32, [M, D], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        %total = pgpu.range_reduce %c0 to %n identity(%zero : f32) -> (f32) element {
        ^bb0(%t: index):
          %block = pgpu.param "BLOCK" : index
          %sum = pgpu.for %c0 to %d step %block iter_args(%zero : f32) -> f32 {
          ^bb0(%b: index, %acc: f32):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ds = pgpu.splat %d : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ds : !pgpu.fragment<index, [BLOCK]>
            %i = pgpu.load %idx[%t] valid %true : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[index] -> i32
            %r = pgpu.cast %i : i32 to index
            %xv = pgpu.gather %x[%r, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [M, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %sq = pgpu.binary mul %xv, %xv : !pgpu.fragment<f32, [BLOCK]>
            %part = pgpu.reduce %sq axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %rr: f32):
              %s = pgpu.binary add %l, %rr : f32
              pgpu.yield %s : f32
            }
            %next = pgpu.binary add %acc, %part : f32
            pgpu.yield %next : f32
          }
          %e = pgpu.unary exp %sum : f32
          pgpu.yield %e : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %s = pgpu.binary add %l, %r : f32
          pgpu.yield %s : f32
        }
        pgpu.store %total, %out[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the member's loop is an ordered author loop (step 1, not a blocking walk of the row),
// COM: and a walk that reads nothing of the member (the same row for every member) reduces no row.
// CHECK-LABEL: pgpu.kernel @not_rows
// CHECK-NOT: ROWS
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.if
// CHECK: pgpu.range_reduce
// CHECK-NOT: ROWS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @not_rows(%x: !pgpu.view<f32, [M, D], in>, %idx: !pgpu.view<i32, [N], in>, %out: !pgpu.view<f32, [2], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 64>]} {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %zi = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = pgpu.extent %idx[0] : !pgpu.view<i32, [N], in>
    %d = pgpu.extent %x[1] : !pgpu.view<f32, [M, D], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        %serial = pgpu.range_reduce %c0 to %n identity(%zero : f32) -> (f32) element {
        ^bb0(%t: index):
          %i = pgpu.load %idx[%t] valid %true : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[index] -> i32
          %r = pgpu.cast %i : i32 to index
          %sum = pgpu.for %c0 to %d step %c1 iter_args(%zero : f32) -> f32 {
          ^bb0(%k: index, %acc: f32):
            %v = pgpu.gather %x[%r, %k] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
            %next = pgpu.binary add %acc, %v : f32
            pgpu.yield %next : f32
          }
          pgpu.yield %sum : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %s = pgpu.binary add %l, %r : f32
          pgpu.yield %s : f32
        }
        %same = pgpu.range_reduce %c0 to %n identity(%zero : f32) -> (f32) element {
        ^bb0(%t: index):
          %block = pgpu.param "BLOCK" : index
          %sum = pgpu.for %c0 to %d step %block iter_args(%zero : f32) -> f32 {
          ^bb0(%b: index, %acc: f32):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ds = pgpu.splat %d : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ds : !pgpu.fragment<index, [BLOCK]>
            %xv = pgpu.load %x[%c0, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [M, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %part = pgpu.reduce %xv axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %rr: f32):
              %s = pgpu.binary add %l, %rr : f32
              pgpu.yield %s : f32
            }
            %next = pgpu.binary add %acc, %part : f32
            pgpu.yield %next : f32
          }
          %tf = pgpu.cast %t : index to f32
          %w = pgpu.binary mul %sum, %tf : f32
          pgpu.yield %w : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %s = pgpu.binary add %l, %r : f32
          pgpu.yield %s : f32
        }
        pgpu.store %serial, %out[%c0] valid %true : i1 : f32, !pgpu.view<f32, [2], out>[index]
        pgpu.store %same, %out[%c1] valid %true : i1 : f32, !pgpu.view<f32, [2], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the member walks its own row of a view (a row of logits, 213_cross_entropy's
// COM: log-sum-exp over thousands of columns), no row gathered through an index: its blocks stay as they are.
// CHECK-LABEL: pgpu.kernel @own_rows
// CHECK-NOT: ROWS
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.if
// CHECK-NOT: ROWS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @own_rows(%x: !pgpu.view<f32, [N, D], in>, %out: !pgpu.view<f32, [1], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 64>]} {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = pgpu.extent %x[0] : !pgpu.view<f32, [N, D], in>
    %d = pgpu.extent %x[1] : !pgpu.view<f32, [N, D], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        %total = pgpu.range_reduce %c0 to %n identity(%zero : f32) -> (f32) element {
        ^bb0(%t: index):
          %block = pgpu.param "BLOCK" : index
          %sum = pgpu.for %c0 to %d step %block iter_args(%zero : f32) -> f32 {
          ^bb0(%b: index, %acc: f32):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ds = pgpu.splat %d : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ds : !pgpu.fragment<index, [BLOCK]>
            %xv = pgpu.load %x[%t, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [N, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %ex = pgpu.unary exp %xv : !pgpu.fragment<f32, [BLOCK]>
            %part = pgpu.reduce %ex axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %rr: f32):
              %s = pgpu.binary add %l, %rr : f32
              pgpu.yield %s : f32
            }
            %next = pgpu.binary add %acc, %part : f32
            pgpu.yield %next : f32
          }
          %lse = pgpu.unary log %sum : f32
          pgpu.yield %lse : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %s = pgpu.binary add %l, %r : f32
          pgpu.yield %s : f32
        }
        pgpu.store %total, %out[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
