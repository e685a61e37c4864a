// RUN: tessel-opt %s -split-input-file -pgpu-pack-rows | FileCheck %s

// COM: A foreach whose members each reduce a short row and write the result (94_knn_top8's squared
// COM: distances d[m, n] = sum_d (k[n, d] - q[m, d])^2 kept in a workspace): where the walk's range fits one
// COM: block (0 < D <= BLOCK) the members run ROWS a step: the rows read as a [ROWS, BLOCK] tile, the
// COM: program's own row (q[m, :]) stays [BLOCK] and broadcasts, the tile reduced over axis 1 and written
// COM: as [ROWS] masked to the members below N. The foreach as it was otherwise. BLOCK, which covered no
// COM: one symbol, covers the walk's D; ROWS' default is 32 (members a step: the program count stays).
// CHECK-LABEL: pgpu.kernel @row_distances
// CHECK-SAME: #pgpu.param<"BLOCK", [16, 32, 64, 128, 256], 64, covers = "D">
// CHECK-SAME: #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 32>
// CHECK: %[[ROWS:.*]] = pgpu.param "ROWS" : index
// CHECK: pgpu.if %{{.*}} {
// CHECK: pgpu.for %c0 to %[[N:.*]] step %[[ROWS]] {
// CHECK: ^bb0(%[[FIRST:.*]]: index):
// CHECK: %[[T:.*]] = pgpu.iota %[[FIRST]] : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LIVE:.*]] = pgpu.cmp lt %[[T]], %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: pgpu.load %k[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [ROWS, BLOCK]> {{.*}} -> !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: pgpu.load %q[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: pgpu.reduce %{{.*}} axes [1] {{.*}} -> (!pgpu.fragment<f32, [ROWS]>)
// CHECK: pgpu.buffer_store %{{.*}}, %arg0[%{{.*}}, %[[T]]] valid %{{.*}} : !pgpu.fragment<i1, [ROWS]> : !pgpu.fragment<f32, [ROWS]>
// CHECK: } else {
// CHECK: pgpu.foreach %c0 to %[[N]] {
// CHECK: pgpu.buffer_store %{{.*}} : f32,
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_distances(%q: !pgpu.view<f32, [M, D], in>, %k: !pgpu.view<f32, [N, D], in>, %arg0: !pgpu.buffer<f32, [M, N], workspace> {pgpu.private = "workspace"}) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 64>]} {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %m = pgpu.extent %q[0] : !pgpu.view<f32, [M, D], in>
    %d = pgpu.extent %q[1] : !pgpu.view<f32, [M, D], in>
    %n = pgpu.extent %k[0] : !pgpu.view<f32, [N, D], in>
    pgpu.program_space(%m) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%m) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        pgpu.foreach %c0 to %n {
        ^bb0(%key: index):
          %block = pgpu.param "BLOCK" : index
          %sum = pgpu.for %c0 to %d step %block iter_args(%zero : f32) -> f32 {
          ^bb0(%b: index, %acc: f32):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ds = pgpu.splat %d : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ds : !pgpu.fragment<index, [BLOCK]>
            %kv = pgpu.load %k[%key, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [N, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %qv = pgpu.load %q[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [M, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %diff = pgpu.binary sub %kv, %qv : !pgpu.fragment<f32, [BLOCK]>
            %sq = pgpu.binary mul %diff, %diff : !pgpu.fragment<f32, [BLOCK]>
            %part = pgpu.reduce %sq axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %r: f32):
              %s = pgpu.binary add %l, %r : f32
              pgpu.yield %s : f32
            }
            %next = pgpu.binary add %acc, %part : f32
            pgpu.yield %next : f32
          }
          pgpu.buffer_store %sum, %arg0[%row, %key] valid %true : i1 : f32, !pgpu.buffer<f32, [M, N], workspace>[index, index]
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

// COM: Must not fire: every member writes the same element (a write whose coordinates do not depend on
// COM: the member: ROWS lanes would race on one address).
// CHECK-LABEL: pgpu.kernel @shared_write
// CHECK-NOT: ROWS
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @shared_write(%q: !pgpu.view<f32, [M, D], in>, %k: !pgpu.view<f32, [N, D], in>, %arg0: !pgpu.buffer<f32, [M, N], workspace> {pgpu.private = "workspace"}) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 64>]} {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %m = pgpu.extent %q[0] : !pgpu.view<f32, [M, D], in>
    %d = pgpu.extent %q[1] : !pgpu.view<f32, [M, D], in>
    %n = pgpu.extent %k[0] : !pgpu.view<f32, [N, D], in>
    pgpu.program_space(%m) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%m) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        pgpu.foreach %c0 to %n {
        ^bb0(%key: index):
          %block = pgpu.param "BLOCK" : index
          %sum = pgpu.for %c0 to %d step %block iter_args(%zero : f32) -> f32 {
          ^bb0(%b: index, %acc: f32):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ds = pgpu.splat %d : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ds : !pgpu.fragment<index, [BLOCK]>
            %kv = pgpu.load %k[%key, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [N, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %sq = pgpu.binary mul %kv, %kv : !pgpu.fragment<f32, [BLOCK]>
            %part = pgpu.reduce %sq axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %r: f32):
              %s = pgpu.binary add %l, %r : f32
              pgpu.yield %s : f32
            }
            %next = pgpu.binary add %acc, %part : f32
            pgpu.yield %next : f32
          }
          pgpu.buffer_store %sum, %arg0[%row, %c0] valid %true : i1 : f32, !pgpu.buffer<f32, [M, N], workspace>[index, index]
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

// COM: Must not fire: the members reduce no row (an element-wise foreach: pgpu-form-blocking's lanes).
// CHECK-LABEL: pgpu.kernel @no_row
// CHECK-NOT: ROWS
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @no_row(%k: !pgpu.view<f32, [N], in>, %out: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 64>]} {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = pgpu.extent %k[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        pgpu.foreach %c0 to %n {
        ^bb0(%key: index):
          %kv = pgpu.load %k[%key] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %sq = pgpu.binary mul %kv, %kv : f32
          pgpu.store %sq, %out[%key] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: Must not fire: the member's row is the program's own (x[p, key, :], read at the program's
// COM: coordinate: 290_spec_greedy_verify's vocabulary rows), whose length nothing bounds; BLOCK keeps no
// COM: covering symbol and the row is walked in blocks as it was.
// CHECK-LABEL: pgpu.kernel @own_rows
// CHECK-NOT: ROWS
// CHECK-NOT: covers
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @own_rows(%x: !pgpu.view<f32, [B, K, V], in>, %arg0: !pgpu.buffer<f32, [B, K], workspace> {pgpu.private = "workspace"}) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 64>]} {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %b = pgpu.extent %x[0] : !pgpu.view<f32, [B, K, V], in>
    %kk = pgpu.extent %x[1] : !pgpu.view<f32, [B, K, V], in>
    %v = pgpu.extent %x[2] : !pgpu.view<f32, [B, K, V], in>
    pgpu.program_space(%b) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%b) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        pgpu.foreach %c0 to %kk {
        ^bb0(%key: index):
          %block = pgpu.param "BLOCK" : index
          %sum = pgpu.for %c0 to %v step %block iter_args(%zero : f32) -> f32 {
          ^bb0(%i: index, %acc: f32):
            %lanes = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
            %vs = pgpu.splat %v : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %vs : !pgpu.fragment<index, [BLOCK]>
            %xv = pgpu.load %x[%row, %key, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [B, K, V], in>[index, index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %part = pgpu.reduce %xv axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %r: f32):
              %s = pgpu.binary add %l, %r : f32
              pgpu.yield %s : f32
            }
            %next = pgpu.binary add %acc, %part : f32
            pgpu.yield %next : f32
          }
          pgpu.buffer_store %sum, %arg0[%row, %key] valid %true : i1 : f32, !pgpu.buffer<f32, [B, K], workspace>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
