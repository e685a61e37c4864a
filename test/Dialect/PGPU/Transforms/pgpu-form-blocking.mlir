// RUN: tessel-opt %s -split-input-file -pgpu-form-blocking | FileCheck %s

// COM: A range reduction over a runtime extent becomes a loop over blocks of BLOCK lanes: the index
// COM: becomes iota(b), the load becomes a fragment load masked by lane < N (conjoined with its own
// COM: validity), invalid lanes contribute the identity, pgpu.reduce folds the block, and the partial
// COM: joins the carried accumulator through the same combine. BLOCK is declared on the kernel.
// CHECK-LABEL: pgpu.kernel @rowsum
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024], 512>
// CHECK: %[[BLOCK:.*]] = pgpu.param "BLOCK" : index
// CHECK: %[[SUM:.*]] = pgpu.for %{{.*}} to %[[N:.*]] step %[[BLOCK]] iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[ACC:.*]]: f32):
// CHECK: %[[LANES:.*]] = pgpu.iota %[[B]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[OK:.*]] = pgpu.cmp lt %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[V:.*]] = pgpu.load %x[%{{.*}}, %[[LANES]]] valid %[[VALID:.*]] : !pgpu.fragment<i1, [BLOCK]>
// CHECK: pgpu.select %{{.*}}, %[[V]], %{{.*}} : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[PART:.*]] = pgpu.reduce %{{.*}} axes [0] identity(%{{.*}} : f32)
// CHECK: pgpu.binary add %[[ACC]], %[[PART]] : f32
// CHECK: pgpu.store %[[SUM]], %y
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowsum(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>) {
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
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      }
      pgpu.store %s, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: An independent workset (foreach) of stores becomes blocked stores with lane validity.
// CHECK-LABEL: pgpu.kernel @scale
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>
// CHECK-NOT: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scale(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>, %s: f32) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.foreach %c0 to %N {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %w = pgpu.binary mul %v, %s : f32
        pgpu.store %w, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: an ordered loop is never blocked, and a reduction whose element region holds
// COM: nested control stays as it is (no BLOCK parameter is declared).
// CHECK-LABEL: pgpu.kernel @ordered
// CHECK-NOT: BLOCK
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: pgpu.range_reduce
// CHECK: pgpu.if
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @ordered(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [2], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %run = pgpu.for %c0 to %N step %c1 iter_args(%z : f32) -> f32 {
      ^bb0(%i: index, %a: f32):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %h = pgpu.binary mul %a, %v : f32
        pgpu.yield %h : f32
      }
      %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %pos = pgpu.cmp gt %v, %z : f32
        %r = pgpu.if %pos -> f32 {
          pgpu.yield %v : f32
        } else {
          pgpu.yield %z : f32
        }
        pgpu.yield %r : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      }
      pgpu.store %run, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
      pgpu.store %s, %y[%c1] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
