// RUN: tessel-opt %s -split-input-file --kir-to-pgpu --verify-diagnostics | FileCheck %s
// COM: A relaxed kir.atomic_rmw whose old value is unused is constructed as a pgpu.scatter_reduce
// COM: whose combine is the kind's binary op (max and min propagate NaN, as the KIR interpreter's
// COM: applyRMW): one per element of a row (a domain coordinate) or of a scalar coordinate.

// CHECK-LABEL: pgpu.kernel @row_max
// CHECK: pgpu.foreach
// CHECK: pgpu.scatter_reduce
// CHECK: pgpu.binary max %{{.*}}, %{{.*}} : f32
// CHECK-NOT: kir.atomic_rmw
kir.kernel @row_max(%x: !kir.view<f32, [N, D], in>, %idx: !kir.view<i32, [N], in> {kir.range = [0, "S"]},
                    %out: !kir.view<f32, [S, D], inout>) {
  %n = kir.extent "N"
  %d = kir.extent "D"
  %c0 = arith.constant 0 : index
  %rows = kir.domain %c0 to %n
  %dims = kir.domain %c0 to %d
  kir.parallel %rows {
  ^bb0(%i: index):
    %j = kir.load %idx[%i] : !kir.view<i32, [N], in>[index] -> i32
    %jj = kir.cast %j : i32 to index
    %v = kir.load %x[%i, %dims] : !kir.view<f32, [N, D], in>[index, !kir.domain] -> tensor<?xf32>
    %old = kir.atomic_rmw max %v, %out[%jj, %dims] order relaxed sharing invocation
        : tensor<?xf32>, !kir.view<f32, [S, D], inout>[index, !kir.domain] -> tensor<?xf32>
    kir.yield
  }
  kir.return
}

// -----

// CHECK-LABEL: pgpu.kernel @scalar_xor
// CHECK: pgpu.scatter_reduce
// CHECK: pgpu.binary xor %{{.*}}, %{{.*}} : i32
kir.kernel @scalar_xor(%x: !kir.view<i32, [N], in>, %idx: !kir.view<i32, [N], in> {kir.range = [0, "S"]},
                       %out: !kir.view<i32, [S], inout>) {
  %n = kir.extent "N"
  %c0 = arith.constant 0 : index
  %rows = kir.domain %c0 to %n
  kir.parallel %rows {
  ^bb0(%i: index):
    %j = kir.load %idx[%i] : !kir.view<i32, [N], in>[index] -> i32
    %jj = kir.cast %j : i32 to index
    %v = kir.load %x[%i] : !kir.view<i32, [N], in>[index] -> i32
    %old = kir.atomic_rmw xor %v, %out[%jj] order relaxed sharing invocation : i32, !kir.view<i32, [S], inout>[index] -> i32
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: the old value is read (a ticket), so it is no scatter-reduce.
kir.kernel @ticket(%cnt: !kir.view<i32, [S], inout>, %y: !kir.view<i32, [N], out>) {
  %n = kir.extent "N"
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %rows = kir.domain %c0 to %n
  kir.parallel %rows {
  ^bb0(%i: index):
    // expected-error @+1 {{kir-to-pgpu does not construct an atomic 'add' whose old value is used yet}}
    %old = kir.atomic_rmw add %one, %cnt[%c0] order relaxed sharing invocation : i32, !kir.view<i32, [S], inout>[index] -> i32
    kir.store %old, %y[%i] : i32, !kir.view<i32, [N], out>[index]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: an acquire-release atomic orders other accesses, which a scatter-reduce does not.
kir.kernel @ordered(%x: !kir.view<i32, [N], in>, %cnt: !kir.view<i32, [S], inout>) {
  %n = kir.extent "N"
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %rows = kir.domain %c0 to %n
  kir.parallel %rows {
  ^bb0(%i: index):
    // expected-error @+1 {{kir-to-pgpu does not construct an atomic 'max' with order acq_rel yet}}
    %old = kir.atomic_rmw max %one, %cnt[%c0] order acq_rel sharing invocation : i32, !kir.view<i32, [S], inout>[index] -> i32
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: an exchange combines nothing.
kir.kernel @exchange(%x: !kir.view<i32, [N], in>, %cnt: !kir.view<i32, [S], inout>) {
  %n = kir.extent "N"
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %rows = kir.domain %c0 to %n
  kir.parallel %rows {
  ^bb0(%i: index):
    // expected-error @+1 {{kir-to-pgpu does not construct an atomic 'exchange' yet}}
    %old = kir.atomic_rmw exchange %one, %cnt[%c0] order relaxed sharing invocation : i32, !kir.view<i32, [S], inout>[index] -> i32
    kir.yield
  }
  kir.return
}
