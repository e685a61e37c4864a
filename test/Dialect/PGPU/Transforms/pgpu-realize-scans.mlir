// RUN: tessel-opt %s -split-input-file -pgpu-realize-folds | FileCheck %s

// COM: A region scan becomes its ordered loop over segments, the state carried from init. Emit
// COM: writes y, which summarize does not read: summarize runs first, and the load of x[b] that
// COM: emit repeats is merged with summarize's (one load per segment); then apply.
// CHECK-LABEL: pgpu.kernel @prefix
// CHECK-NOT: pgpu.region_scan
// CHECK: %[[T:.*]] = pgpu.extent %x[0]
// CHECK: %[[FINAL:.*]] = pgpu.for %{{.*}} to %[[T]] step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[S:.*]]: f32):
// CHECK: %[[V:.*]] = pgpu.load %x[%[[B]]]
// CHECK-NOT: pgpu.load
// CHECK: %[[OUT:.*]] = pgpu.binary add %[[S]], %[[V]] : f32
// CHECK: pgpu.store %[[OUT]], %y[%[[B]]]
// COM: apply's state + transition is emit's output here: CSE keeps one.
// CHECK-NEXT: pgpu.yield %[[OUT]] : f32
// CHECK: pgpu.store %[[FINAL]], %total
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @prefix(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [T], out>, %total: !pgpu.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %s = pgpu.region_scan %c0 to %T step %c1 identity(%zero : f32) init(%zero : f32)
          operands(%x, %y : !pgpu.view<f32, [T], in>, !pgpu.view<f32, [T], out>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [T], in>, %yv: !pgpu.view<f32, [T], out>):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %v = pgpu.load %xv[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T], in>[index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%l: f32, %r: f32):
        %a = pgpu.binary add %l, %r : f32
        pgpu.yield %a : f32
      } apply {
      ^bb0(%d: f32, %st: f32):
        %a = pgpu.binary add %st, %d : f32
        pgpu.yield %a : f32
      } emit {
      ^bb0(%b: index, %e: index, %st: f32, %xv: !pgpu.view<f32, [T], in>, %yv: !pgpu.view<f32, [T], out>):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %v = pgpu.load %xv[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T], in>[index] -> f32
        %o = pgpu.binary add %st, %v : f32
        pgpu.store %o, %yv[%b] valid %t : i1 : f32, !pgpu.view<f32, [T], out>[index]
        pgpu.yield
      }
      pgpu.store %s, %total[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not reorder: emit writes the view summarize reads (w, inout), so the segment is emitted
// COM: first and summarize reads after the write (its load is not merged with emit's).
// CHECK-LABEL: pgpu.kernel @in_place
// CHECK: pgpu.for
// CHECK: %[[V:.*]] = pgpu.load %w
// CHECK: pgpu.store %{{.*}}, %w
// CHECK: %[[V2:.*]] = pgpu.load %w
// CHECK: pgpu.binary add %{{.*}}, %[[V2]] : f32
// CHECK: pgpu.yield
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @in_place(%w: !pgpu.view<f32, [T], inout>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %T = pgpu.extent %w[0] : !pgpu.view<f32, [T], inout>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %s = pgpu.region_scan %c0 to %T step %c1 identity(%zero : f32) init(%zero : f32)
          operands(%w : !pgpu.view<f32, [T], inout>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %wv: !pgpu.view<f32, [T], inout>):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %v = pgpu.load %wv[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T], inout>[index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%l: f32, %r: f32):
        %a = pgpu.binary add %l, %r : f32
        pgpu.yield %a : f32
      } apply {
      ^bb0(%d: f32, %st: f32):
        %a = pgpu.binary add %st, %d : f32
        pgpu.yield %a : f32
      } emit {
      ^bb0(%b: index, %e: index, %st: f32, %wv: !pgpu.view<f32, [T], inout>):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %v = pgpu.load %wv[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T], inout>[index] -> f32
        %o = pgpu.binary add %st, %v : f32
        pgpu.store %o, %wv[%b] valid %t : i1 : f32, !pgpu.view<f32, [T], inout>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
