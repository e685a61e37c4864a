// RUN: tessel-opt %s -split-input-file -pgpu-form-blocking | FileCheck %s

// COM: A split reduction's partial (a phased sum's chunk, KIRToPGPU/PhasedSums.cpp): a range_reduce
// COM: at the top of an execution group with axes whose result is only added into a workspace by a
// COM: scatter-reduce. Its block loop carries a [BLOCK] lane accumulator (splat identity), adds
// COM: each block's neutralized members lane-wise, and reduces the accumulator once after the loop.
// CHECK-LABEL: pgpu.kernel @chunk_sum
// CHECK: %[[INIT:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[ACCS:.*]] = pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[INIT]] : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[ACC:.*]]: !pgpu.fragment<f32, [BLOCK]>):
// CHECK: %[[SQ:.*]] = pgpu.binary mul
// CHECK: %[[M:.*]] = pgpu.select %{{.*}}, %[[SQ]], %{{.*}} : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
// CHECK-NOT: pgpu.reduce
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[ACC]], %[[M]] : !pgpu.fragment<f32, [BLOCK]>
// CHECK-NEXT: pgpu.yield %[[NEXT]] : !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[S:.*]] = pgpu.reduce %[[ACCS]] axes [0] identity(%{{.*}} : f32)
// CHECK: pgpu.scatter_reduce %[[S]], %ws[%{{.*}}]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @chunk_sum(%x: !pgpu.view<f32, [N], in>, %ws: !pgpu.buffer<f32, [1], workspace> {pgpu.init = 0.0 : f32, pgpu.kept, pgpu.private = "workspace"}) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c4096 = arith.constant 4096 : index
    %chunks = pgpu.ceil_div %N, %c4096 : index
    pgpu.program_space (%chunks) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%chunks) segment 0 roles ["axis0"] {
      ^bb0(%c: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %lo = pgpu.binary mul %c, %c4096 : index
        %end = pgpu.binary add %lo, %c4096 : index
        %hi = pgpu.binary min %end, %N : index
        %s = pgpu.range_reduce %lo to %hi identity(%z : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %sq = pgpu.binary mul %v, %v : f32
          pgpu.yield %sq : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %r = pgpu.binary add %a, %b : f32
          pgpu.yield %r : f32
        }
        pgpu.scatter_reduce %s, %ws[%c0] valid %t : i1 : f32, !pgpu.buffer<f32, [1], workspace>[index] {
        ^bb0(%a: f32, %b: f32):
          %r = pgpu.binary add %a, %b : f32
          pgpu.yield %r : f32
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the reduction's result is also stored (not only a partial merged by atomics):
// COM: the loop carries a scalar and reduces every block (pgpu.reduce inside the loop).
// CHECK-LABEL: pgpu.kernel @chunk_sum_stored
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.reduce
// CHECK: pgpu.yield %{{.*}} : f32
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @chunk_sum_stored(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [C], out>, %ws: !pgpu.buffer<f32, [1], workspace> {pgpu.init = 0.0 : f32, pgpu.kept, pgpu.private = "workspace"}) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c4096 = arith.constant 4096 : index
    %chunks = pgpu.ceil_div %N, %c4096 : index
    pgpu.program_space (%chunks) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%chunks) segment 0 roles ["axis0"] {
      ^bb0(%c: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %lo = pgpu.binary mul %c, %c4096 : index
        %end = pgpu.binary add %lo, %c4096 : index
        %hi = pgpu.binary min %end, %N : index
        %s = pgpu.range_reduce %lo to %hi identity(%z : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %r = pgpu.binary add %a, %b : f32
          pgpu.yield %r : f32
        }
        pgpu.store %s, %y[%c] valid %t : i1 : f32, !pgpu.view<f32, [C], out>[index]
        pgpu.scatter_reduce %s, %ws[%c0] valid %t : i1 : f32, !pgpu.buffer<f32, [1], workspace>[index] {
        ^bb0(%a: f32, %b: f32):
          %r = pgpu.binary add %a, %b : f32
          pgpu.yield %r : f32
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a reduction in a group without axes (one instance; a kernel-level reduction
// COM: becomes a region fold there, not this loop) -- here a row's reduction per program space member.
// CHECK-LABEL: pgpu.kernel @row_sum_atomic
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @row_sum_atomic(%x: !pgpu.view<f32, [M, N], in>, %ws: !pgpu.buffer<f32, [1], workspace> {pgpu.init = 0.0 : f32, pgpu.kept, pgpu.private = "workspace"}) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %r = pgpu.binary add %a, %b : f32
        pgpu.yield %r : f32
      }
      pgpu.scatter_reduce %s, %ws[%c0] valid %t : i1 : f32, !pgpu.buffer<f32, [1], workspace>[index] {
      ^bb0(%a: f32, %b: f32):
        %r = pgpu.binary add %a, %b : f32
        pgpu.yield %r : f32
      }
      pgpu.yield
    }
    pgpu.return
  }
}
