// RUN: tessel-opt %s -split-input-file -canonicalize | FileCheck %s
// RUN: tessel-opt %s -split-input-file -cse | FileCheck %s --check-prefix=CSE

// COM: kir's control ops report their body's effect kinds themselves, found from the body's end
// COM: (tessel/Dialect/Utils/BodyEffects.h): the canonicalizer's dead-op check stops at the store
// COM: instead of walking every op before it (issue 47). The answers are the ones the walk gave:
// COM: a loop whose body stores stays, one whose body only reads or computes is dead and goes.

// CHECK-LABEL: kir.kernel @stores_stay
// CHECK: kir.parallel
// CHECK: arith.addi %{{.*}}, %c3
// CHECK: kir.store
// CHECK: kir.for
// CHECK: kir.if
// CHECK: kir.store
kir.kernel @stores_stay(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M], out>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  kir.parallel %dm {
  ^bb0(%i: index):
    %j1 = arith.addi %i, %c1 : index
    %j2 = arith.addi %j1, %c1 : index
    %j3 = arith.addi %j2, %c1 : index
    %r = arith.remsi %j3, %n : index
    %v = kir.load %x[%i, %r] : !kir.view<f32, [M, N], in>[index, index] -> f32
    kir.store %v, %y[%i] : f32, !kir.view<f32, [M], out>[index]
    kir.yield
  }
  // COM: the write sits in a nested region, before pure ops the loop's end holds.
  kir.for %dm {
  ^bb0(%i: index):
    %v = kir.load %x[%i, %c0] : !kir.view<f32, [M, N], in>[index, index] -> f32
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %v, %zero : f32
    kir.if %pos {
      kir.store %v, %y[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    %unused = arith.addi %i, %c1 : index
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not keep: a result-less loop that only reads, a loop whose results nobody uses, and an
// COM: if that only computes are dead, as they were when MLIR walked their bodies.
// CHECK-LABEL: kir.kernel @dead_loops_go
// CHECK-NOT: kir.parallel
// CHECK-NOT: kir.for
// CHECK-NOT: kir.if
// CHECK: kir.return
kir.kernel @dead_loops_go(%x: !kir.view<f32, [M, N], in>, %c: i1) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %dm = kir.domain %c0 to %m
  %zero = arith.constant 0.0 : f32
  kir.parallel %dm {
  ^bb0(%i: index):
    %v = kir.load %x[%i, %c0] : !kir.view<f32, [M, N], in>[index, index] -> f32
    kir.yield
  }
  %s = kir.for %dm iter_args(%zero : f32) -> f32 {
  ^bb0(%i: index, %acc: f32):
    %v = kir.load %x[%i, %c0] : !kir.view<f32, [M, N], in>[index, index] -> f32
    %next = arith.addf %acc, %v : f32
    kir.yield %next : f32
  }
  kir.if %c {
    %w = arith.addf %zero, %zero : f32
    kir.yield
  }
  kir.return
}

// -----

// COM: CSE: a read-only loop reports its reads, so two identical ones with no write between them
// COM: are one; a write between them keeps both.
// CSE-LABEL: kir.kernel @read_only_loops
// CSE: kir.for
// CSE-NOT: kir.for
// CSE: kir.store
// CSE: kir.store
kir.kernel @read_only_loops(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M], out>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %dm = kir.domain %c0 to %m
  %zero = arith.constant 0.0 : f32
  %a = kir.for %dm iter_args(%zero : f32) -> f32 {
  ^bb0(%i: index, %acc: f32):
    %v = kir.load %x[%i, %c0] : !kir.view<f32, [M, N], in>[index, index] -> f32
    %next = arith.addf %acc, %v : f32
    kir.yield %next : f32
  }
  %b = kir.for %dm iter_args(%zero : f32) -> f32 {
  ^bb0(%i: index, %acc: f32):
    %v = kir.load %x[%i, %c0] : !kir.view<f32, [M, N], in>[index, index] -> f32
    %next = arith.addf %acc, %v : f32
    kir.yield %next : f32
  }
  kir.store %a, %y[%c0] : f32, !kir.view<f32, [M], out>[index]
  kir.store %b, %y[%c0] : f32, !kir.view<f32, [M], out>[index]
  kir.return
}
