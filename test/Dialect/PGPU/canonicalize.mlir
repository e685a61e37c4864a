// RUN: tessel-opt %s -canonicalize | FileCheck %s

// COM: Integer/index identities and constant arithmetic of pgpu.binary fold; float arithmetic never
// COM: does (its numerics belong to the program).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  // CHECK-LABEL: pgpu.kernel @fold
  pgpu.kernel @fold(%y: !pgpu.view<f32, [N], out>, %n: index, %f: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %a = pgpu.binary mul %n, %c1 : index
    %b = pgpu.binary add %c0, %a : index
    %c = pgpu.binary mul %c3, %c3 : index
    %total = pgpu.binary add %b, %c : index
    // CHECK: %[[C9:.*]] = arith.constant 9 : index
    // CHECK: %[[T:.*]] = pgpu.binary add %n, %[[C9]] : index
    // CHECK: pgpu.program_space(%[[T]])
    // CHECK-NEXT: ^bb0(%[[P:.*]]: index):
    pgpu.program_space (%total) {
    ^bb0(%p: index):
      %z = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      // CHECK: pgpu.binary add %f, %{{.*}} : f32
      // CHECK: pgpu.binary mul %{{.*}}, %{{.*}} : f32
      %g = pgpu.binary add %f, %z : f32
      %h = pgpu.binary mul %g, %one : f32
      %t = arith.constant true
      %q = pgpu.binary sub %p, %c0 : index
      // CHECK: pgpu.store %{{.*}}, %y[%[[P]]]
      pgpu.store %h, %y[%q] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
