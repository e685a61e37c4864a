// RUN: tessel-opt %s -split-input-file -pgpu-tile-column-reductions | FileCheck %s

// COM: A sum over a window of neighbouring channels per pixel (local response normalization): the
// COM: reduced range is [0, max(min(c + 2 + 1, C) - max(max(c - 2, 0), 0), 0)), the length of the slice
// COM: chans[max(c - 2, 0) : min(c + 3, C)] as construction spells it (the start's clamp nested twice,
// COM: the end c + 2 + 1 not the start plus a constant but the same channel plus 3). Its length is at
// COM: most 5 for every channel, so BLOCK_R covers "5": a call's default binds the smallest candidate
// COM: holding 5 (8), not a [128, BLOCK_C] tile of masked rows.
// CHECK-LABEL: pgpu.kernel @window_sum
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128], 16, covers = "5">
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.store %{{.*}} : !pgpu.fragment<f32, [BLOCK_C]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @window_sum(%x: !pgpu.view<f32, [N, C, W], in>, %y: !pgpu.view<f32, [N, C, W], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, W], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, W], in>
    %W = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, W], in>
    %nc = pgpu.binary mul %N, %C : index
    %all = pgpu.binary mul %nc, %W : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N, %C, %W) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%n: index, %c: index, %w: index):
        %lo0 = pgpu.binary sub %c, %c2 : index
        %lo1 = pgpu.binary max %lo0, %c0 : index
        %hi0 = pgpu.binary add %c, %c2 : index
        %hi1 = pgpu.binary add %hi0, %c1 : index
        %hi2 = pgpu.binary min %hi1, %C : index
        %lo = pgpu.binary max %lo1, %c0 : index
        %hi = pgpu.binary min %hi2, %C : index
        %len0 = pgpu.binary sub %hi, %lo : index
        %len = pgpu.binary max %len0, %c0 : index
        %s = pgpu.range_reduce %c0 to %len identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %ch = pgpu.binary add %lo, %r : index
          %v = pgpu.load %x[%n, %ch, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, C, W], in>[index, index, index] -> f32
          %sq = pgpu.binary mul %v, %v : f32
          pgpu.yield %sq : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %a = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %y[%n, %c, %w] valid %t : i1 : f32, !pgpu.view<f32, [N, C, W], out>[index, index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1", "axis2"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not cover a width: the window's end is the channel plus a runtime half-width K (an
// COM: extent), so its length is bounded by no constant; BLOCK_R keeps its default with no cover.
// CHECK-LABEL: pgpu.kernel @runtime_window_sum
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128], 16>]
// CHECK-NOT: covers = "
// CHECK: pgpu.reduce %{{.*}} axes [0]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @runtime_window_sum(%x: !pgpu.view<f32, [N, C, W], in>, %k: !pgpu.view<f32, [K], in>, %y: !pgpu.view<f32, [N, C, W], out>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, W], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, W], in>
    %W = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, W], in>
    %K = pgpu.extent %k[0] : !pgpu.view<f32, [K], in>
    %nc = pgpu.binary mul %N, %C : index
    %all = pgpu.binary mul %nc, %W : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N, %C, %W) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%n: index, %c: index, %w: index):
        %lo0 = pgpu.binary sub %c, %c2 : index
        %lo = pgpu.binary max %lo0, %c0 : index
        %hi0 = pgpu.binary add %c, %K : index
        %hi = pgpu.binary min %hi0, %C : index
        %len0 = pgpu.binary sub %hi, %lo : index
        %len = pgpu.binary max %len0, %c0 : index
        %s = pgpu.range_reduce %c0 to %len identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %ch = pgpu.binary add %lo, %r : index
          %v = pgpu.load %x[%n, %ch, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, C, W], in>[index, index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %a = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %y[%n, %c, %w] valid %t : i1 : f32, !pgpu.view<f32, [N, C, W], out>[index, index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1", "axis2"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
