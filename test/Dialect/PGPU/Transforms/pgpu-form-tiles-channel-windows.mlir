// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: Row tiles with a reduction (issue 41): a local response norm's sum of squares over a clipped
// COM: window of channels c' in [max(c - 2, 0), min(c + 3, C)) per output element of an NCHW plane,
// COM: flattened to program axes (n, c, h, w). Every access (the window's reads too) walks w, and the
// COM: sum depends on h and w: h and w are blocked as [TILE_2, TILE_3] row tiles, n and c stay scalars,
// COM: and the reduction walks its members one a trip (step 1), each trip a [TILE_2, TILE_3] tile of
// COM: one channel's plane added to the carried tile: every trip reads a contiguous tile of rows.
// CHECK-LABEL: pgpu.kernel @window
// CHECK-SAME: #pgpu.param<"TILE_2", [1, 2, 4, 8, 16, 32], 8>
// CHECK-SAME: #pgpu.param<"TILE_3", [16, 32, 64, 128, 256], 64, covers = "W">
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) segment 0 roles ["n", "c", "h", "w"]
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[SUM:.*]] = pgpu.for %{{.*}} to %{{.*}} step %[[ONE]] iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_2, TILE_3]>)
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_2, TILE_3]>
// CHECK: pgpu.binary add %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_2, TILE_3]>
// CHECK: pgpu.binary div %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_2, TILE_3]>
// CHECK: pgpu.store %{{.*}}, %out[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_2, TILE_3]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @window(%x: !pgpu.view<f32, [N, C, H, W], in>, %out: !pgpu.view<f32, [N, C, H, W], out>) {
    %f0 = arith.constant 0.0 : f32
    %f2 = arith.constant 2.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H, W], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H, W], in>
    %H = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H, W], in>
    %W = pgpu.extent %x[3] : !pgpu.view<f32, [N, C, H, W], in>
    %p0 = pgpu.binary mul %N, %C : index
    %p1 = pgpu.binary mul %p0, %H : index
    %p = pgpu.binary mul %p1, %W : index
    pgpu.program_space(%p) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled for contiguous accesses: TILE_2 (program axis 2), TILE_3 (program axis 3); 1 reduction(s) walk one member a trip, each a row tile}}
      pgpu.execution_group %pid extents(%N, %C, %H, %W) segment 0 roles ["n", "c", "h", "w"] {
      ^bb0(%n: index, %c: index, %h: index, %w: index):
        %s = pgpu.binary sub %c, %c2 : index
        %lo = pgpu.binary max %s, %c0 : index
        %e0 = pgpu.binary add %c, %c2 : index
        %e1 = pgpu.binary add %e0, %c1 : index
        %hi = pgpu.binary min %e1, %C : index
        %d = pgpu.binary sub %hi, %lo : index
        %len = pgpu.binary max %d, %c0 : index
        %v = pgpu.load %x[%n, %c, %h, %w] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [N, C, H, W], in>[index, index, index, index] -> f32
        %sq = pgpu.range_reduce %c0 to %len identity(%f0 : f32) -> (f32) element {
        ^bb0(%k: index):
          %ck = pgpu.binary add %lo, %k : index
          %u = pgpu.load %x[%n, %ck, %h, %w] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [N, C, H, W], in>[index, index, index, index] -> f32
          %u2 = pgpu.binary mul %u, %u : f32
          pgpu.yield %u2 : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %ab = pgpu.binary add %a, %b : f32
          pgpu.yield %ab : f32
        }
        %den = pgpu.binary add %f2, %sq : f32
        %y = pgpu.binary div %v, %den : f32
        pgpu.store %y, %out[%n, %c, %h, %w] valid %true : i1 : f32, !pgpu.view<f32, [N, C, H, W], out>[index, index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the reduction's read runs along its members (a sum over the innermost channels
// COM: of an NHWC tensor): walked one member a trip, each trip would read a strided tile.
// CHECK-LABEL: pgpu.kernel @member_walk
// CHECK-NOT: TILE_
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @member_walk(%x: !pgpu.view<f32, [N, H, W, K], in>, %out: !pgpu.view<f32, [N, H, W], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, H, W, K], in>
    %H = pgpu.extent %x[1] : !pgpu.view<f32, [N, H, W, K], in>
    %W = pgpu.extent %x[2] : !pgpu.view<f32, [N, H, W, K], in>
    %K = pgpu.extent %x[3] : !pgpu.view<f32, [N, H, W, K], in>
    %p0 = pgpu.binary mul %N, %H : index
    %p = pgpu.binary mul %p0, %W : index
    pgpu.program_space(%p) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction, and a reduction's read runs along its members, not along the row}}
      pgpu.execution_group %pid extents(%N, %H, %W) segment 0 roles ["n", "h", "w"] {
      ^bb0(%n: index, %h: index, %w: index):
        %s = pgpu.range_reduce %c0 to %K identity(%f0 : f32) -> (f32) element {
        ^bb0(%k: index):
          %u = pgpu.load %x[%n, %h, %w, %k] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [N, H, W, K], in>[index, index, index, index] -> f32
          pgpu.yield %u : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %ab = pgpu.binary add %a, %b : f32
          pgpu.yield %ab : f32
        }
        pgpu.store %s, %out[%n, %h, %w] valid %true : i1 : f32, !pgpu.view<f32, [N, H, W], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the reduction's result does not depend on w (a sum over channels of each row's
// COM: first element, added to the row): walked one member a trip it would be a tile repeated along
// COM: w; the one-axis blocking blocks it along its members instead.
// CHECK-LABEL: pgpu.kernel @row_statistic
// CHECK-NOT: TILE_
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @row_statistic(%x: !pgpu.view<f32, [N, C, H, W], in>, %out: !pgpu.view<f32, [N, C, H, W], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H, W], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H, W], in>
    %H = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H, W], in>
    %W = pgpu.extent %x[3] : !pgpu.view<f32, [N, C, H, W], in>
    %p0 = pgpu.binary mul %N, %C : index
    %p1 = pgpu.binary mul %p0, %H : index
    %p = pgpu.binary mul %p1, %W : index
    pgpu.program_space(%p) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction, and a reduction's result does not depend on both row-tile axes}}
      pgpu.execution_group %pid extents(%N, %C, %H, %W) segment 0 roles ["n", "c", "h", "w"] {
      ^bb0(%n: index, %c: index, %h: index, %w: index):
        %v = pgpu.load %x[%n, %c, %h, %w] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [N, C, H, W], in>[index, index, index, index] -> f32
        %s = pgpu.range_reduce %c0 to %C identity(%f0 : f32) -> (f32) element {
        ^bb0(%k: index):
          %u = pgpu.load %x[%n, %k, %h, %c0] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [N, C, H, W], in>[index, index, index, index] -> f32
          pgpu.yield %u : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %ab = pgpu.binary add %a, %b : f32
          pgpu.yield %ab : f32
        }
        %y = pgpu.binary add %v, %s : f32
        pgpu.store %y, %out[%n, %c, %h, %w] valid %true : i1 : f32, !pgpu.view<f32, [N, C, H, W], out>[index, index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
