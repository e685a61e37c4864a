// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -pgpu-dynamic-walk 2>&1 | FileCheck %s
// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -pgpu-dynamic-walk -pgpu-dynamic-walk 2>&1 | FileCheck %s --check-prefix=TWICE

// COM: Must not fire on a walk already taken from a counter: one counter, one remark of each kind.
// TWICE: remark: pgpu-dynamic-walk: each program takes the next tile
// TWICE: remark: pgpu-dynamic-walk: not rewritten: no members loop holding a tiles loop
// TWICE-LABEL: pgpu.kernel @grouped
// TWICE-SAME: %arg0_0: !pgpu.buffer<i32, [1], workspace>
// TWICE-NOT: %arg0_1:
// TWICE-COUNT-2: pgpu.atomic_rmw add
// TWICE-NOT: pgpu.atomic_rmw add

// COM: The ragged grouped GEMM's segment walk (pgpu-form-tiles-segments.mlir's first kernel): after
// COM: the walk is formed, each program takes its first tile index from a one-element workspace
// COM: counter (filled with 0) before the groups loop, which carries it beside the tiles before the
// COM: group; the group's tiles loop (stepping by the program count) becomes a while over the taken
// COM: index below base + count, the tile base + t = index, taking the next index after each tile.
// CHECK: remark: pgpu-dynamic-walk: each program takes the next tile of the walk from a workspace counter
// CHECK-LABEL: pgpu.kernel @grouped
// CHECK-SAME: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}, %[[CTR:[^:]*]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"})
// CHECK: pgpu.execution_group %{{.*}} roles ["segment walk"] {
// CHECK: %[[FIRST:.*]] = pgpu.atomic_rmw add %{{.*}}, %[[CTR]][%{{.*}}] valid %{{.*}} : i1 order relaxed sharing invocation : i32, !pgpu.buffer<i32, [1], workspace>[index] -> i32
// CHECK: %[[T0:.*]] = pgpu.cast %[[FIRST]] : i32 to index
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}}, %[[T0]] : index, index) -> index, index {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[BASE:.*]]: index, %[[NEXT:.*]]: index):
// CHECK-NOT: pgpu.for %{{.*}} step %{{.*}} {
// CHECK: %[[END:.*]] = pgpu.binary add %[[BASE]], %{{.*}} : index
// CHECK: pgpu.while(%[[NEXT]] : index) -> index {
// CHECK: pgpu.condition
// CHECK: } do {
// CHECK-NEXT: ^bb0(%[[MINE:.*]]: index):
// CHECK-NEXT: %{{.*}} = pgpu.binary sub %[[MINE]], %[[BASE]] : index
// CHECK: pgpu.contract
// CHECK: pgpu.store
// CHECK: pgpu.atomic_rmw add %{{.*}}, %[[CTR]]
// CHECK: pgpu.yield
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @grouped(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [G, K, N], in>, %offs: !pgpu.view<index, [G1], in>, %c: !pgpu.view<f32, [M, N], out>, %arg0: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %true = arith.constant true
    %z16 = arith.constant 0.0 : f16
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %G = pgpu.extent %b[0] : !pgpu.view<f16, [G, K, N], in>
    %N = pgpu.extent %b[2] : !pgpu.view<f16, [G, K, N], in>
    %E = pgpu.binary max %G, %c1 : index
    pgpu.program_space(%E) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %G : index
      pgpu.if %in {
        // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_1 (program axis 1), TILE_2 (program axis 2), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_1; segment walk}}
        pgpu.execution_group %pid extents(%G) segment 0 roles ["g"] {
        ^bb0(%g: index):
          %g1 = pgpu.binary add %g, %c1 : index
          %lo0 = pgpu.range_reduce %g to %g1 identity(%c0 : index) -> (index) element {
          ^bb0(%i: index):
            %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G1], in>[index] -> index
            pgpu.yield %o : index
          } combine {
          ^bb0(%u: index, %v: index):
            %w = pgpu.binary max %u, %v : index
            pgpu.yield %w : index
          }
          %g2 = pgpu.binary add %g, %c2 : index
          %hi0 = pgpu.range_reduce %g1 to %g2 identity(%c0 : index) -> (index) element {
          ^bb0(%i: index):
            %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G1], in>[index] -> index
            pgpu.yield %o : index
          } combine {
          ^bb0(%u: index, %v: index):
            %w = pgpu.binary max %u, %v : index
            pgpu.yield %w : index
          }
          %lo = pgpu.binary min %lo0, %M : index
          %hi1 = pgpu.binary min %hi0, %M : index
          %d = pgpu.binary sub %hi1, %lo : index
          %rows = pgpu.binary max %d, %c0 : index
          pgpu.foreach %c0 to %rows {
          ^bb0(%r: index):
            pgpu.foreach %c0 to %N {
            ^bb0(%n: index):
              %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
              ^bb0(%k: index):
                %row = pgpu.binary add %lo, %r : index
                %x = pgpu.load %a[%row, %k] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
                %y = pgpu.load %b[%g, %k, %n] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [G, K, N], in>[index, index, index] -> f16
                %xf = pgpu.cast %x : f16 to f32
                %yf = pgpu.cast %y : f16 to f32
                %p = pgpu.binary mul %xf, %yf : f32
                pgpu.yield %p : f32
              } combine {
              ^bb0(%u: f32, %v: f32):
                %w = pgpu.binary add %u, %v : f32
                pgpu.yield %w : f32
              }
              %row = pgpu.binary add %lo, %r : index
              pgpu.store %s, %c[%row, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
              pgpu.yield
            }
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.last_program %arg0 : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          pgpu.store %z, %c[%c0, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire: a tiled GEMM (no segment walk): no counter, no while.
// CHECK-LABEL: pgpu.kernel @gemm(
// CHECK-NOT: workspace
// CHECK-NOT: pgpu.atomic_rmw
// CHECK-NOT: pgpu.while
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

