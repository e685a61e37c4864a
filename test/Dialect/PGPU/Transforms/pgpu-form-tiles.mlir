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
// CHECK: pgpu.param "GROUP_0" : index
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
// COM: one-axis blocking (pgpu-refine-mapping).
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

// COM: The contraction's sole same-dtype addition consumer (a bias) merges into the accumulator: the
// COM: loop starts from the bias tile and no addition follows it (seed 002 §3.4). The sum also
// COM: stored on its own (@bias_twice) keeps the addition after the loop (must not fire).
// CHECK-LABEL: pgpu.kernel @bias
// CHECK: %[[B:.*]] = pgpu.load %bias[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1]>
// CHECK: %[[B2:.*]] = pgpu.broadcast %[[B]] dims [1] : !pgpu.fragment<f32, [TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[ACC:.*]] = pgpu.for %{{.*}} iter_args(%[[B2]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: pgpu.contract
// CHECK-NOT: pgpu.binary add %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.store %[[ACC]], %c
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
