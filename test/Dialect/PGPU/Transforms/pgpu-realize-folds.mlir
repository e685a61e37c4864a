// RUN: tessel-opt %s -pgpu-realize-folds | FileCheck %s

// COM: The fold becomes its ordered loop: carries start at the identity; each iteration runs
// COM: summarize on [b, min(b + step, T)) and combines its summary into the carries.
// CHECK-LABEL: pgpu.kernel @unit
// CHECK-NOT: pgpu.region_fold
// CHECK: %[[T:.*]] = pgpu.extent %x[0]
// CHECK: %[[SUM:.*]] = pgpu.for %[[C0:.*]] to %[[T]] step %[[C1:.*]] iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[ACC:.*]]: f32):
// CHECK: %[[V:.*]] = pgpu.load %x[%[[B]]]
// CHECK: %[[N:.*]] = pgpu.binary add %[[ACC]], %[[V]] : f32
// CHECK: pgpu.yield %[[N]] : f32
// CHECK: pgpu.store %[[SUM]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @unit(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %sum = pgpu.region_fold %c0 to %T step %c1 identity(%zero : f32)
          operands(%x : !pgpu.view<f32, [T], in>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [T], in>):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %v = pgpu.load %xv[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T], in>[index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      pgpu.store %sum, %y[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
