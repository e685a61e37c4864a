// RUN: tessel-opt %s -split-input-file -canonicalize | FileCheck %s

// COM: pgpu's control ops report their body's effect kinds, found from the body's end
// COM: (tessel/Dialect/Utils/BodyEffects.h; issue 47): the dead-op check of a program space or a
// COM: result-less loop stops at its store. A loop that stores stays; one that only reads goes.

// CHECK-LABEL: pgpu.kernel @stores_stay
// CHECK: pgpu.program_space
// CHECK: arith.addi %{{.*}}, %c2
// CHECK: pgpu.foreach
// CHECK: pgpu.store
// CHECK: pgpu.store
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @stores_stay(%x: !pgpu.view<f32, [M], in>, %y: !pgpu.view<f32, [M], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M], in>
    pgpu.program_space (%M) {
    ^bb0(%t: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %true = arith.constant true
      %z = arith.constant 0.0 : f32
      %j1 = arith.addi %t, %c1 : index
      %j2 = arith.addi %j1, %c1 : index
      %r = arith.remsi %j2, %M : index
      %v = pgpu.load %x[%r] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [M], in>[index] -> f32
      pgpu.foreach %c0 to %c1 {
      ^bb0(%k: index):
        pgpu.store %v, %y[%t] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.store %v, %y[%t] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not keep: a result-less loop whose body only reads is dead.
// CHECK-LABEL: pgpu.kernel @reads_go
// CHECK: pgpu.program_space
// CHECK-NOT: pgpu.for
// CHECK-NOT: pgpu.load
// CHECK: pgpu.store
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @reads_go(%x: !pgpu.view<f32, [M], in>, %y: !pgpu.view<f32, [M], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M], in>
    pgpu.program_space (%M) {
    ^bb0(%t: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %true = arith.constant true
      %z = arith.constant 0.0 : f32
      pgpu.for %c0 to %M step %c1 {
      ^bb0(%k: index):
        %v = pgpu.load %x[%k] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [M], in>[index] -> f32
        pgpu.yield
      }
      pgpu.store %z, %y[%t] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
