// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles | FileCheck %s

// COM: A constructed GEMM: program per row m, a foreach over n, a sum over k of a widened product.
// COM: The foreach becomes a program axis; m and n are blocked by TILE_0/TILE_1 and traversed in
// COM: groups of GROUP_0 row tiles; k becomes a loop over TILE_K blocks whose operand tiles (the
// COM: f16 loads, the exact f32 widenings absorbed) feed pgpu.contract into a carried accumulator.
// COM: The rhs tile [n, k] is transposed to [k, n]. The product itself is never built.
// CHECK-LABEL: pgpu.kernel @gemm
// CHECK-SAME: #pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>
// CHECK: %[[TM:.*]] = pgpu.ceil_div %[[M:.*]], %{{.*}} : index
// CHECK: %[[TN:.*]] = pgpu.ceil_div %{{.*}}, %{{.*}} : index
// CHECK: %[[TOTAL:.*]] = pgpu.binary mul %[[TM]], %[[TN]] : index
// CHECK: pgpu.program_space(%[[TOTAL]])
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["grouped tiles"] {
// CHECK-NEXT: ^bb0(%[[LIN:.*]]: index):
// CHECK-NEXT: %[[G:.*]] = pgpu.param "GROUP_0" : index
// COM: The group's rows are clamped to at least 1 (true of every tile of the grid), so the sign
// COM: analysis proves the divisor positive and providers keep their truncating // and %.
// CHECK: %[[GID:.*]] = pgpu.binary div %[[LIN]], %[[PER:.*]] : index
// CHECK: %[[FIRST:.*]] = pgpu.binary mul %[[GID]], %[[G]] : index
// CHECK: %[[LEFT:.*]] = pgpu.binary sub %[[TM]], %[[FIRST]] : index
// CHECK: %[[FEW:.*]] = pgpu.binary min %[[LEFT]], %[[G]] : index
// CHECK: %[[NROWS:.*]] = pgpu.binary max %[[FEW]], %{{.*}} : index
// CHECK: %[[LOCAL:.*]] = pgpu.binary sub %[[LIN]], %{{.*}} : index
// CHECK: pgpu.binary rem %[[LOCAL]], %[[NROWS]] : index
// CHECK: pgpu.binary div %[[LOCAL]], %[[NROWS]] : index
// CHECK: %[[ROWS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [TILE_0]>
// CHECK: %[[COLS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [TILE_1]>
// CHECK: %[[ACC0:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[STEP:.*]] = pgpu.param "TILE_K" : index
// CHECK: %[[ACC:.*]] = pgpu.for %{{.*}} to %[[K:.*]] step %[[STEP]] iter_args(%[[ACC0]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: %[[KS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [TILE_K]>
// CHECK: %[[A:.*]] = pgpu.load %a[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %{{.*}} : f16 {{.*}} -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
// CHECK: %[[B:.*]] = pgpu.load %b[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_K]> fill %{{.*}} : f16 {{.*}} -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
// CHECK-NOT: pgpu.cast
// CHECK-NOT: pgpu.binary mul
// CHECK: %[[BT:.*]] = pgpu.transpose %[[B]] [1, 0] : !pgpu.fragment<f16, [TILE_1, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
// CHECK: %[[NEXT:.*]] = pgpu.contract %[[A]], %[[BT]], %{{.*}} reduce([1], [0]) batch([], [])
// CHECK: pgpu.yield %[[NEXT]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.store %{{.*}}, %c[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NOT: pgpu.foreach
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @gemm(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
            %xf = pgpu.cast %x : f16 to f32
            %yf = pgpu.cast %y : f16 to f32
            %p = pgpu.binary mul %xf, %yf : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %c[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: With the multiprocessor count known, the tiles are walked persistently: min(tiles,
// COM: PERSIST * 132) programs, each a pgpu.for from its coordinate over the tiles with that stride,
// COM: the grouped execution group inside it. (Without the count, as above, the grid is the tiles.)
// CHECK-LABEL: pgpu.kernel @gemm_persistent
// CHECK-SAME: #pgpu.param<"PERSIST", [1, 2, 4], 1>
// CHECK: %[[TOTAL:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : index
// CHECK: %[[PER:.*]] = pgpu.param "PERSIST" : index
// CHECK: %[[SMS:.*]] = arith.constant 132 : index
// CHECK: %[[RESIDENT:.*]] = pgpu.binary mul %[[PER]], %[[SMS]] : index
// CHECK: %[[PROGRAMS:.*]] = pgpu.binary min %[[TOTAL]], %[[RESIDENT]] : index
// CHECK: pgpu.program_space(%[[PROGRAMS]])
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK-NEXT: pgpu.for %[[PID]] to %[[TOTAL]] step %[[PROGRAMS]] {
// CHECK-NEXT: ^bb0(%[[TILE:.*]]: index):
// CHECK-NEXT: pgpu.execution_group %[[TILE]] extents(%{{.*}}) segment 0 roles ["grouped tiles"] {
// CHECK: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", multiprocessors = 132>} {
  pgpu.kernel @gemm_persistent(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
            %xf = pgpu.cast %x : f16 to f32
            %yf = pgpu.cast %y : f16 to f32
            %p = pgpu.binary mul %xf, %yf : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %c[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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


// COM: A batched GEMM: the batch axis is shared by both operands, so it stays a scalar program
// COM: axis (one batch per program); m and n (the innermost program axes) are tiled and grouped.
// CHECK-LABEL: pgpu.kernel @bgemm
// CHECK: pgpu.execution_group %{{.*}} extents(%[[NB:.*]], %{{.*}}) segment 0 roles ["axis0", "grouped tiles"] {
// CHECK-NEXT: ^bb0(%[[BATCH:.*]]: index, %{{.*}}: index):
// CHECK: %[[BS:.*]] = pgpu.splat %[[BATCH]] : index -> !pgpu.fragment<index, [TILE_1, TILE_K]>
// CHECK: pgpu.load %a[%[[BS]], %{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_K]>
// CHECK: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @bgemm(%a: !pgpu.view<f32, [B, M, K], in>, %b: !pgpu.view<f32, [B, K, N], in>, %c: !pgpu.view<f32, [B, M, N], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %a[0] : !pgpu.view<f32, [B, M, K], in>
    %M = pgpu.extent %a[1] : !pgpu.view<f32, [B, M, K], in>
    %K = pgpu.extent %a[2] : !pgpu.view<f32, [B, M, K], in>
    %N = pgpu.extent %b[2] : !pgpu.view<f32, [B, K, N], in>
    %BM = pgpu.binary mul %B, %M : index
    pgpu.program_space(%BM) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%B, %M) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%bi: index, %m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%f0 : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%bi, %m, %k] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [B, M, K], in>[index, index, index] -> f32
            %y = pgpu.load %b[%bi, %k, %n] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [B, K, N], in>[index, index, index] -> f32
            %p = pgpu.binary mul %x, %y : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %c[%bi, %m, %n] valid %true : i1 : f32, !pgpu.view<f32, [B, M, N], out>[index, index, index]
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

// COM: Must not fire: a row reduction has no second free axis to reuse operands across (gemv
// COM: shape: x depends on k only), so the one-axis passes keep it.
// CHECK-LABEL: pgpu.kernel @gemv
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.contract
// CHECK-NOT: TILE_
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @gemv(%a: !pgpu.view<f32, [M, K], in>, %x: !pgpu.view<f32, [K], in>, %y: !pgpu.view<f32, [M], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f32, [M, K], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        %s = pgpu.range_reduce %c0 to %K identity(%f0 : f32) -> (f32) element {
        ^bb0(%k: index):
          %u = pgpu.load %a[%m, %k] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [M, K], in>[index, index] -> f32
          %v = pgpu.load %x[%k] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [K], in>[index] -> f32
          %p = pgpu.binary mul %u, %v : f32
          pgpu.yield %p : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %t = pgpu.binary add %l, %r : f32
          pgpu.yield %t : f32
        }
        pgpu.store %s, %y[%m] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the k range depends on the row (ragged), so no rectangular tile exists.
// CHECK-LABEL: pgpu.kernel @ragged
// CHECK: pgpu.foreach
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @ragged(%a: !pgpu.view<f32, [M, K], in>, %b: !pgpu.view<f32, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f32, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        %hi = pgpu.binary min %m, %K : index
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %hi identity(%f0 : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [M, K], in>[index, index] -> f32
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [K, N], in>[index, index] -> f32
            %p = pgpu.binary mul %x, %y : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %c[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Coalescing: the load walks axis j (its innermost coordinate), the store walks axis i, so no
// COM: one-axis blocking keeps both contiguous; both axes are tiled (TILE_0 x TILE_1, 16..128).
// CHECK-LABEL: pgpu.kernel @transpose
// CHECK-SAME: #pgpu.param<"TILE_0", [16, 32, 64, 128], 64>, #pgpu.param<"TILE_1", [16, 32, 64, 128], 64>
// CHECK: %[[J:.*]] = pgpu.broadcast %{{.*}} dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
// CHECK: %[[I:.*]] = pgpu.broadcast %{{.*}} dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
// CHECK: %[[V:.*]] = pgpu.load %x[%[[J]], %[[I]]] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]>
// CHECK: pgpu.store %[[V]], %y[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @transpose(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [N, M], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %NM = pgpu.binary mul %N, %M : index
    pgpu.program_space(%NM) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%N, %M) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%i: index, %j: index):
        %v = pgpu.load %x[%j, %i] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.store %v, %y[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a 2-d copy whose accesses all walk the same (innermost) axis is served by
// COM: one-axis blocking (pgpu-refine-mapping): its flat walk decodes one row coordinate per lane (row
// COM: tiles start at three program axes, pgpu-form-tiles-rows.mlir).
// CHECK-LABEL: pgpu.kernel @copy
// CHECK-NOT: TILE_
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] valid %{{.*}} : i1
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @copy(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %MN = pgpu.binary mul %M, %N : index
    pgpu.program_space(%MN) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M, %N) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%i: index, %j: index):
        %v = pgpu.load %x[%i, %j] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.store %v, %y[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The contraction's sole same-dtype addition consumer merges into the accumulator only when the
// COM: addend is uniform (a splat of a scalar, seed 002 §3.4 "may merge"): a bias row broadcast over the
// COM: tile stays an addition after the K loop (started before the loop it is live across it; on the
// COM: H200 the merged GEMM + bias + GELU ran 2x slower). The sum also stored on its own (@bias_twice)
// COM: keeps the addition after the loop too.
// CHECK-LABEL: pgpu.kernel @bias
// CHECK: %[[B:.*]] = pgpu.load %bias[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1]>
// CHECK: %[[ACC:.*]] = pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: pgpu.contract
// CHECK: %[[B2:.*]] = pgpu.broadcast %[[B]] dims [1] : !pgpu.fragment<f32, [TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[SUM:.*]] = pgpu.binary add %[[B2]], %[[ACC]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.store %[[SUM]], %c
// CHECK-LABEL: pgpu.kernel @bias_twice
// CHECK: pgpu.for
// CHECK: pgpu.binary add %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @bias(%a: !pgpu.view<f32, [M, K], in>, %b: !pgpu.view<f32, [K, N], in>, %bias: !pgpu.view<f32, [N], in>,
                    %c: !pgpu.view<f32, [M, N], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f32, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %init = pgpu.load %bias[%n] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %s = pgpu.range_reduce %c0 to %K identity(%f0 : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [M, K], in>[index, index] -> f32
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [K, N], in>[index, index] -> f32
            %p = pgpu.binary mul %x, %y : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          %out = pgpu.binary add %init, %s : f32
          pgpu.store %out, %c[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @bias_twice(%a: !pgpu.view<f32, [M, K], in>, %b: !pgpu.view<f32, [K, N], in>, %bias: !pgpu.view<f32, [N], in>,
                          %c: !pgpu.view<f32, [M, N], out>, %d: !pgpu.view<f32, [M, N], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f32, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %init = pgpu.load %bias[%n] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %s = pgpu.range_reduce %c0 to %K identity(%f0 : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [M, K], in>[index, index] -> f32
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [K, N], in>[index, index] -> f32
            %p = pgpu.binary mul %x, %y : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          %out = pgpu.binary add %init, %s : f32
          pgpu.store %out, %c[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.store %s, %d[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Split-K after pgpu-member-tickets: program (s, m, n) sums its split's chunk of k (bounds that
// COM: depend on s, which stays a scalar program axis), stores into the partials buffer, and the
// COM: last of the S programs of member (m, n) sums the partials. m and n are tiled; the chunk's
// COM: sum becomes a contraction over TILE_K blocks between the chunk's bounds; the partials are
// COM: stored as a tile; the finalization takes the ticket of the tile's first member (one per
// COM: tile, still S arrivals) and sums the S partial tiles one split at a time (a lane axis over
// COM: the splits would need a rank-3 fragment).
// CHECK-LABEL: pgpu.kernel @split_partials
// CHECK: pgpu.execution_group %{{.*}} extents(%[[S:[0-9]+]], %{{.*}}) segment 0 roles ["axis0", "grouped tiles"]
// CHECK-NEXT: ^bb0(%[[PS:.*]]: index, %{{.*}}: index):
// CHECK: pgpu.iota %[[M0:[0-9]+]] : !pgpu.fragment<index, [TILE_1]>
// CHECK: pgpu.iota %[[N0:[0-9]+]] : !pgpu.fragment<index, [TILE_2]>
// CHECK: pgpu.binary mul %[[PS]], %{{.*}} : index
// CHECK: pgpu.binary sub
// CHECK-NEXT: %[[LEN:.*]] = pgpu.binary max %{{.*}}, %c0 : index
// CHECK-NEXT: pgpu.splat
// CHECK-NEXT: %[[TK:.*]] = pgpu.param "TILE_K" : index
// CHECK: pgpu.for %{{.*}} to %[[LEN]] step %[[TK]] iter_args(
// CHECK: pgpu.contract
// CHECK: pgpu.buffer_store %{{.*}}, %arg0[%{{.*}}, %{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_2]> : !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK-NEXT: pgpu.last_program %arg0_0[%[[M0]], %[[N0]]] arrivals %[[S]] : !pgpu.buffer<i32, [M, N], workspace> {
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: pgpu.for %{{.*}} to %[[S]] step %[[ONE]] iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_1, TILE_2]>)
// CHECK: pgpu.buffer_load %arg0[
// CHECK-SAME: -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: pgpu.binary add %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: pgpu.store %{{.*}}, %c[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_2]>
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @split_partials(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>, %arg0: !pgpu.buffer<f32, [4, M, N], workspace> {pgpu.private = "workspace"}, %arg0_0: !pgpu.buffer<i32, [M, N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %cst = arith.constant 0.000000e+00 : f16
    %true = arith.constant true
    %cst_1 = arith.constant 0.000000e+00 : f32
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %c4, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary add %1, %c3 : index
    %10 = pgpu.binary div %9, %c4 : index
    %11 = pgpu.binary max %8, %c1 : index
    %12 = pgpu.binary mul %8, %4 : index
    %c1_2 = arith.constant 1 : index
    %13 = pgpu.binary max %12, %c1_2 : index
    %14 = pgpu.binary mul %12, %6 : index
    %c1_3 = arith.constant 1 : index
    %15 = pgpu.binary max %14, %c1_3 : index
    pgpu.program_space(%14) {
    ^bb0(%arg1: index):
      pgpu.execution_group %arg1 extents(%8, %4, %6) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%arg2: index, %arg3: index, %arg4: index):
        %17 = pgpu.binary mul %arg2, %10 : index
        %18 = pgpu.binary min %17, %1 : index
        %19 = pgpu.binary add %arg2, %c1 : index
        %20 = pgpu.binary mul %19, %10 : index
        %21 = pgpu.binary min %20, %1 : index
        %22 = pgpu.binary max %18, %c0 : index
        %23 = pgpu.binary min %21, %1 : index
        %24 = pgpu.binary sub %23, %22 : index
        %25 = pgpu.binary max %24, %c0 : index
        %26 = pgpu.range_reduce %c0 to %25 identity(%cst_1 : f32) -> (f32) element {
        ^bb0(%arg5: index):
          %27 = pgpu.binary add %22, %arg5 : index
          %28 = pgpu.load %a[%arg3, %27] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
          %29 = pgpu.load %b[%27, %arg4] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
          %30 = pgpu.cast %28 : f16 to f32
          %31 = pgpu.cast %29 : f16 to f32
          %32 = pgpu.binary mul %30, %31 : f32
          pgpu.yield %32 : f32
        } combine {
        ^bb0(%arg5: f32, %arg6: f32):
          %27 = pgpu.binary add %arg5, %arg6 : f32
          pgpu.yield %27 : f32
        }
        pgpu.buffer_store %26, %arg0[%arg2, %arg3, %arg4] valid %true : i1 : f32, !pgpu.buffer<f32, [4, M, N], workspace>[index, index, index]
        pgpu.last_program %arg0_0[%arg3, %arg4] arrivals %8 : !pgpu.buffer<i32, [M, N], workspace> {
          %27 = pgpu.binary mul %4, %6 : index
          %28 = pgpu.range_reduce %c0 to %8 identity(%cst_1 : f32) -> (f32) element {
          ^bb0(%arg5: index):
            %29 = pgpu.buffer_load %arg0[%arg5, %arg3, %arg4] valid %true : i1 fill %cst_1 : f32 : !pgpu.buffer<f32, [4, M, N], workspace>[index, index, index] -> f32
            pgpu.yield %29 : f32
          } combine {
          ^bb0(%arg5: f32, %arg6: f32):
            %29 = pgpu.binary add %arg5, %arg6 : f32
            pgpu.yield %29 : f32
          }
          pgpu.store %28, %c[%arg3, %arg4] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0", "axis1", "axis2"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

