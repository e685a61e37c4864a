// RUN: tessel-opt %s -split-input-file -pgpu-tile-column-reductions -pgpu-split-folds -verify-diagnostics | FileCheck %s

// COM: A column sum over the rows of each b (the kept axis D in lanes): pgpu-tile-column-reductions
// COM: makes its [BLOCK_R, BLOCK_C] tiles the segments of a region fold, which pgpu-split-folds cuts
// COM: into FOLD_SPLITS contiguous row segments, one program each (a trailing group axis): each
// COM: segment stores its tile accumulator at [point, segment] of workspace, and the point's last
// COM: arrival folds the accumulators in segment order (deterministic, no atomics on the values),
// COM: reduces along BLOCK_R and stores the scaled block.
// CHECK-LABEL: pgpu.kernel @scaled_colsum
// CHECK-SAME: !pgpu.buffer<i32, [FOLD_POINTS], workspace>
// CHECK-SAME: %[[PART:[^:]*]]: !pgpu.buffer<f32, [FOLD_POINTS, FOLD_SPLITS, BLOCK_R, BLOCK_C], workspace>
// CHECK-SAME: #pgpu.param<"FOLD_SPLIT", [1, 2, 4, 8, 16, 32, 64], 1>
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %[[SPLITS:.*]]) segment 0 roles ["axis0", "axis1", "fold_split"] {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[COL:.*]]: index, %[[SEG:.*]]: index):
// CHECK: %[[MINE:.*]] = pgpu.region_fold %{{.*}} to %{{.*}} step %{{.*}} identity(%{{.*}} : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: pgpu.buffer_store %[[MINE]], %[[PART]][%{{.*}}, %[[SEG]], %{{.*}}, %{{.*}}]
// CHECK: pgpu.last_program %{{.*}} arrivals %[[SPLITS]]
// CHECK: %[[ALL:.*]] = pgpu.region_fold %{{.*}} to %[[SPLITS]] step %{{.*}} identity
// CHECK: pgpu.buffer_load
// CHECK: %[[SUM:.*]] = pgpu.reduce %[[ALL]] axes [0]
// CHECK: %[[SCALED:.*]] = pgpu.binary mul %[[SUM]], %{{.*}} : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: pgpu.store %[[SCALED]], %y
// CHECK: } else {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @scaled_colsum(%x: !pgpu.view<f32, [B, R, D], in>, %w: !pgpu.view<f32, [B], in>, %y: !pgpu.view<f32, [B, D], out>) {
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, R, D], in>
    %R = pgpu.extent %x[1] : !pgpu.view<f32, [B, R, D], in>
    %D = pgpu.extent %x[2] : !pgpu.view<f32, [B, R, D], in>
    pgpu.program_space(%B) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%B) segment 0 roles ["axis0"] {
      ^bb0(%b: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %scale = pgpu.load %w[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B], in>[index] -> f32
        pgpu.foreach %c0 to %D {
        ^bb0(%d: index):
          %s = pgpu.range_reduce %c0 to %R identity(%z : f32) -> (f32) element {
          ^bb0(%r: index):
            %v = pgpu.load %x[%b, %r, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, R, D], in>[index, index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a1: f32, %a2: f32):
            %c = pgpu.binary add %a1, %a2 : f32
            pgpu.yield %c : f32
          }
          %m = pgpu.binary mul %s, %scale : f32
          pgpu.store %m, %y[%b, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, D], out>[index, index]
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

// COM: Must not fire: the column blocks stay a loop in the program (no execution group): the row fold
// COM: of each block runs inside that loop, so its segments are not its program's.
// CHECK-LABEL: pgpu.kernel @colsum_in_loop
// CHECK-NOT: FOLD_SPLIT
// CHECK-NOT: workspace
// CHECK: pgpu.for
// CHECK: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @colsum_in_loop(%x: !pgpu.view<f32, [B, R, D], in>, %y: !pgpu.view<f32, [B, D], out>) {
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, R, D], in>
    %R = pgpu.extent %x[1] : !pgpu.view<f32, [B, R, D], in>
    %D = pgpu.extent %x[2] : !pgpu.view<f32, [B, R, D], in>
    pgpu.program_space (%B) {
    ^bb0(%b: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      // expected-remark @below {{pgpu-tile-column-reductions: the kept axis became blocks of BLOCK_C lanes (a loop in the program)}}
      pgpu.foreach %c0 to %D {
      ^bb0(%d: index):
        %s = pgpu.range_reduce %c0 to %R identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%b, %r, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, R, D], in>[index, index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %y[%b, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, D], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
