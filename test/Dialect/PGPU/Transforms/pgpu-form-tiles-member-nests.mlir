// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: A contraction nested in a sum's element body whose operand reads the sum's member h and one
// COM: program axis (a lightning indexer, I[t, s] = sum_h w[t, h] relu(sum_d q[t, h, d] k[s, d])): the
// COM: contraction's tile is [TILE_0, TILE_1] over the two program axes, and h is walked one member a
// COM: trip (step 1, no TILE parameter) around its K loop, a scalar coordinate of q's and w's reads.
// COM: The relu and the scale by w's [TILE_0] column apply to the tile, which is added to the sum's
// COM: [TILE_0, TILE_1] carry (seed 002 §3.3-§3.4).
// CHECK-LABEL: pgpu.kernel @indexer
// CHECK-SAME: #pgpu.param<"TILE_0", {{.*}} #pgpu.param<"TILE_1", {{.*}} #pgpu.param<"TILE_K"
// CHECK-NOT: TILE_2
// CHECK: %[[ZERO:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[SUM:.*]] = pgpu.for %{{.*}} to %{{.*}} step %[[ONE]] iter_args(%[[ZERO]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK-NEXT: ^bb0(%[[H:.*]]: index, %[[ACC:.*]]: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
// CHECK: %[[KSTEP:.*]] = pgpu.param "TILE_K" : index
// CHECK: %[[DOT:.*]] = pgpu.for %{{.*}} to %{{.*}} step %[[KSTEP]] iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: %[[HS:.*]] = pgpu.splat %[[H]] : index -> !pgpu.fragment<index, [TILE_0, TILE_K]>
// CHECK: %[[Q:.*]] = pgpu.load %q[%{{.*}}, %[[HS]], %{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
// CHECK: %[[K:.*]] = pgpu.load %k[{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
// CHECK: %[[KT:.*]] = pgpu.transpose %[[K]] [1, 0]
// CHECK: pgpu.contract %[[Q]], %[[KT]], %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[RELU:.*]] = pgpu.binary max %[[DOT]], %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[W:.*]] = pgpu.load %w[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [TILE_0]>
// CHECK: %[[WB:.*]] = pgpu.broadcast %[[W]] dims [0] : !pgpu.fragment<f32, [TILE_0]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[TERM:.*]] = pgpu.binary mul %[[RELU]], %[[WB]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[ACC]], %[[TERM]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.yield %[[NEXT]]
// CHECK: pgpu.store %[[SUM]], %scores[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @indexer(%q: !pgpu.view<f16, [T, H, D], in>, %w: !pgpu.view<f32, [T, H], in>, %k: !pgpu.view<f16, [S, D], in>, %scores: !pgpu.view<f32, [T, S], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %T = pgpu.extent %q[0] : !pgpu.view<f16, [T, H, D], in>
    %H = pgpu.extent %q[1] : !pgpu.view<f16, [T, H, D], in>
    %D = pgpu.extent %q[2] : !pgpu.view<f16, [T, H, D], in>
    %S = pgpu.extent %k[0] : !pgpu.view<f16, [S, D], in>
    %TS = pgpu.binary mul %T, %S : index
    pgpu.program_space(%TS) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; 1 reduction(s) walk one member a trip around a nested contraction's tile; grouped traversal GROUP_0}}
      pgpu.execution_group %pid extents(%T, %S) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%t: index, %s: index):
        %i = pgpu.range_reduce %c0 to %H identity(%z : f32) -> (f32) element {
        ^bb0(%h: index):
          %dot = pgpu.range_reduce %c0 to %D identity(%z : f32) -> (f32) element {
          ^bb0(%d: index):
            %qv = pgpu.load %q[%t, %h, %d] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [T, H, D], in>[index, index, index] -> f16
            %kv = pgpu.load %k[%s, %d] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [S, D], in>[index, index] -> f16
            %qf = pgpu.cast %qv : f16 to f32
            %kf = pgpu.cast %kv : f16 to f32
            %p = pgpu.binary mul %qf, %kf : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %relu = pgpu.binary max %dot, %z : f32
          %wv = pgpu.load %w[%t, %h] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [T, H], in>[index, index] -> f32
          %term = pgpu.binary mul %relu, %wv : f32
          pgpu.yield %term : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.store %i, %scores[%t, %s] valid %true : i1 : f32, !pgpu.view<f32, [T, S], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Both operands read the member h (per-head keys k[s, h, d]): h is a scalar coordinate of both
// COM: tiles, walked one member a trip as above.
// CHECK-LABEL: pgpu.kernel @per_head_keys
// CHECK: pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: pgpu.for %{{.*}} to %{{.*}} step %[[ONE]] iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: pgpu.load %q[{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
// CHECK: pgpu.load %k[{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
// CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.binary mul %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.store
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @per_head_keys(%q: !pgpu.view<f16, [T, H, D], in>, %k: !pgpu.view<f16, [S, H, D], in>, %scores: !pgpu.view<f32, [T, S], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %T = pgpu.extent %q[0] : !pgpu.view<f16, [T, H, D], in>
    %H = pgpu.extent %q[1] : !pgpu.view<f16, [T, H, D], in>
    %D = pgpu.extent %q[2] : !pgpu.view<f16, [T, H, D], in>
    %S = pgpu.extent %k[0] : !pgpu.view<f16, [S, H, D], in>
    %TS = pgpu.binary mul %T, %S : index
    pgpu.program_space(%TS) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest}}
      pgpu.execution_group %pid extents(%T, %S) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%t: index, %s: index):
        %i = pgpu.range_reduce %c0 to %H identity(%z : f32) -> (f32) element {
        ^bb0(%h: index):
          %dot = pgpu.range_reduce %c0 to %D identity(%z : f32) -> (f32) element {
          ^bb0(%d: index):
            %qv = pgpu.load %q[%t, %h, %d] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [T, H, D], in>[index, index, index] -> f16
            %kv = pgpu.load %k[%s, %h, %d] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [S, H, D], in>[index, index, index] -> f16
            %qf = pgpu.cast %qv : f16 to f32
            %kf = pgpu.cast %kv : f16 to f32
            %p = pgpu.binary mul %qf, %kf : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %sq = pgpu.binary mul %dot, %dot : f32
          pgpu.yield %sq : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.store %i, %scores[%t, %s] valid %true : i1 : f32, !pgpu.view<f32, [T, S], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the nested contraction's range depends on the member h (d < h + 1, a triangle):
// COM: its K loop would differ trip by trip, so the nest is left to pgpu-form-blocking.
// CHECK-LABEL: pgpu.kernel @member_bounds
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @member_bounds(%q: !pgpu.view<f16, [T, H, D], in>, %k: !pgpu.view<f16, [S, D], in>, %scores: !pgpu.view<f32, [T, S], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %T = pgpu.extent %q[0] : !pgpu.view<f16, [T, H, D], in>
    %H = pgpu.extent %q[1] : !pgpu.view<f16, [T, H, D], in>
    %S = pgpu.extent %k[0] : !pgpu.view<f16, [S, D], in>
    %TS = pgpu.binary mul %T, %S : index
    pgpu.program_space(%TS) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: a nested contraction's bounds depend on the enclosing reduction's member}}
      pgpu.execution_group %pid extents(%T, %S) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%t: index, %s: index):
        %i = pgpu.range_reduce %c0 to %H identity(%z : f32) -> (f32) element {
        ^bb0(%h: index):
          %hi = pgpu.binary add %h, %c1 : index
          %dot = pgpu.range_reduce %c0 to %hi identity(%z : f32) -> (f32) element {
          ^bb0(%d: index):
            %qv = pgpu.load %q[%t, %h, %d] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [T, H, D], in>[index, index, index] -> f16
            %kv = pgpu.load %k[%s, %d] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [S, D], in>[index, index] -> f16
            %qf = pgpu.cast %qv : f16 to f32
            %kf = pgpu.cast %kv : f16 to f32
            %p = pgpu.binary mul %qf, %kf : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %relu = pgpu.binary max %dot, %z : f32
          pgpu.yield %relu : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.store %i, %scores[%t, %s] valid %true : i1 : f32, !pgpu.view<f32, [T, S], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
