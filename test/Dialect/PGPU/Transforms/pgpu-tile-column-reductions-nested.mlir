// RUN: tessel-opt %s -split-input-file -pgpu-tile-column-reductions | FileCheck %s

// COM: A pool over (h, w) of an NHWC view per (n, c) (the sum over h's element a sum over w, the
// COM: same combine and identity, the read's contiguous coordinate c depends on neither): one
// COM: reduction over the flattened rows r in [0, H * W) (h = r / W, w = r % W), which the pass then
// COM: tiles as a column reduction (c in BLOCK_C lanes, r in BLOCK_R) in a region fold.
// CHECK-LABEL: pgpu.kernel @pool
// CHECK-SAME: #pgpu.param<"BLOCK_C"
// CHECK-SAME: #pgpu.param<"BLOCK_R"
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.execution_group
// CHECK: %[[HW:.*]] = pgpu.binary mul %{{[0-9]+}}, %[[W:[0-9]+]] : index
// CHECK-NEXT: pgpu.binary max %[[W]], %{{.*}} : index
// CHECK: pgpu.region_fold %{{.*}} to %[[HW]] step %{{.*}} identity(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: %[[ROWS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: pgpu.binary div %[[ROWS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: pgpu.binary rem %[[ROWS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: pgpu.load %{{.*}} -> !pgpu.fragment<f16, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.store %{{.*}} : !pgpu.fragment<f32, [BLOCK_C]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @pool(%x: !pgpu.view<f16, [N, H, W, C], in>, %out: !pgpu.view<f32, [N, C], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %N = pgpu.extent %x[0] : !pgpu.view<f16, [N, H, W, C], in>
    %H = pgpu.extent %x[1] : !pgpu.view<f16, [N, H, W, C], in>
    %W = pgpu.extent %x[2] : !pgpu.view<f16, [N, H, W, C], in>
    %C = pgpu.extent %x[3] : !pgpu.view<f16, [N, H, W, C], in>
    %all = pgpu.binary mul %N, %C : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N, %C) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %c: index):
        %s = pgpu.range_reduce %c0 to %H identity(%z : f32) -> (f32) element {
        ^bb0(%h: index):
          %sw = pgpu.range_reduce %c0 to %W identity(%z : f32) -> (f32) element {
          ^bb0(%w: index):
            %v = pgpu.load %x[%n, %h, %w, %c] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [N, H, W, C], in>[index, index, index, index] -> f16
            %f = pgpu.cast %v : f16 to f32
            pgpu.yield %f : f32
          } combine {
          ^bb0(%a1: f32, %a2: f32):
            %a = pgpu.binary add %a1, %a2 : f32
            pgpu.yield %a : f32
          }
          pgpu.yield %sw : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %a = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %out[%n, %c] valid %t : i1 : f32, !pgpu.view<f32, [N, C], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the same nest over (h, w) of an NCHW view (w is the contiguous coordinate: a row
// COM: sum, one axis of lanes serves it), and a nest whose combines differ (a max of sums).
// CHECK-LABEL: pgpu.kernel @pool_nchw
// CHECK-NOT: BLOCK_R
// CHECK-NOT: pgpu.binary rem
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
// CHECK-LABEL: pgpu.kernel @max_of_sums
// CHECK-NOT: BLOCK_R
// CHECK-NOT: pgpu.binary rem
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @pool_nchw(%x: !pgpu.view<f32, [N, C, H, W], in>, %out: !pgpu.view<f32, [N, C], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H, W], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H, W], in>
    %H = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H, W], in>
    %W = pgpu.extent %x[3] : !pgpu.view<f32, [N, C, H, W], in>
    %all = pgpu.binary mul %N, %C : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N, %C) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %c: index):
        %s = pgpu.range_reduce %c0 to %H identity(%z : f32) -> (f32) element {
        ^bb0(%h: index):
          %sw = pgpu.range_reduce %c0 to %W identity(%z : f32) -> (f32) element {
          ^bb0(%w: index):
            %v = pgpu.load %x[%n, %c, %h, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, C, H, W], in>[index, index, index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a1: f32, %a2: f32):
            %a = pgpu.binary add %a1, %a2 : f32
            pgpu.yield %a : f32
          }
          pgpu.yield %sw : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %a = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %out[%n, %c] valid %t : i1 : f32, !pgpu.view<f32, [N, C], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @max_of_sums(%x: !pgpu.view<f32, [N, H, W, C], in>, %out: !pgpu.view<f32, [N, C], out>) {
    %c0 = arith.constant 0 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, H, W, C], in>
    %H = pgpu.extent %x[1] : !pgpu.view<f32, [N, H, W, C], in>
    %W = pgpu.extent %x[2] : !pgpu.view<f32, [N, H, W, C], in>
    %C = pgpu.extent %x[3] : !pgpu.view<f32, [N, H, W, C], in>
    %all = pgpu.binary mul %N, %C : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N, %C) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %c: index):
        %s = pgpu.range_reduce %c0 to %H identity(%z : f32) -> (f32) element {
        ^bb0(%h: index):
          %sw = pgpu.range_reduce %c0 to %W identity(%z : f32) -> (f32) element {
          ^bb0(%w: index):
            %v = pgpu.load %x[%n, %h, %w, %c] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, H, W, C], in>[index, index, index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a1: f32, %a2: f32):
            %a = pgpu.binary add %a1, %a2 : f32
            pgpu.yield %a : f32
          }
          pgpu.yield %sw : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %a = pgpu.binary max %a1, %a2 : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %out[%n, %c] valid %t : i1 : f32, !pgpu.view<f32, [N, C], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
