// RUN: tessel-opt %s -split-input-file -kir-flatten-parallels | FileCheck %s --enable-var-scope

// COM: `for b in T.parallel(dB): for h in T.parallel(dH): ...` is one parallel over (dB, dH): the
// COM: outer body's read (a per-b scale) is recomputed in each member; the inner domain, defined in
// COM: the outer body from values outside it, is cloned before the merged parallel.
// CHECK-LABEL: kir.kernel @nest
// CHECK: %[[NH:.*]] = kir.extent "H"
// CHECK: %[[DH:.*]] = kir.domain %{{.*}} to %[[NH]]
// CHECK-NEXT: kir.parallel %{{.*}}, %[[DH]] {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index):
// CHECK-NEXT: %[[S:.*]] = kir.load %s[%[[B]]]
// CHECK-NOT: kir.domain
// CHECK-NEXT: %[[X:.*]] = kir.load %x[%[[B]], %[[H]], %{{.*}}]
// CHECK: kir.store %{{.*}}, %y[%[[B]], %[[H]], %{{.*}}]
// CHECK-NEXT: kir.yield
// CHECK-NOT: kir.parallel
kir.kernel @nest(%x: !kir.view<f32, [B, H, D], in>, %s: !kir.view<f32, [B], in>, %y: !kir.view<f32, [B, H, D], out>) {
  %c0 = arith.constant 0 : index
  %nb = kir.extent "B"
  %nh = kir.extent "H"
  %nd = kir.extent "D"
  %db = kir.domain %c0 to %nb
  %dd = kir.domain %c0 to %nd
  kir.parallel %db {
  ^bb0(%b: index):
    %sc = kir.load %s[%b] : !kir.view<f32, [B], in>[index] -> f32
    %dh = kir.domain %c0 to %nh
    kir.parallel %dh {
    ^bb0(%h: index):
      %row = kir.load %x[%b, %h, %dd] : !kir.view<f32, [B, H, D], in>[index, index, !kir.domain] -> tensor<?xf32>
      %scb = kir.broadcast %sc over(%dd) dims [] : f32 -> tensor<?xf32>
      %v = kir.binary mul %row, %scb : tensor<?xf32>
      kir.store %v, %y[%b, %h, %dd] : tensor<?xf32>, !kir.view<f32, [B, H, D], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not flatten: a triangular nest (the inner domain depends on the outer member), an outer
// COM: body that reads a view the inner parallel writes, and ops after the inner parallel.
// CHECK-LABEL: kir.kernel @stay
// CHECK-COUNT-6: kir.parallel
kir.kernel @stay(%x: !kir.view<f32, [N, N], inout>, %y: !kir.view<f32, [N], inout>, %z: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = kir.extent "N"
  %dn = kir.domain %c0 to %n
  kir.parallel %dn {
  ^bb0(%i: index):
    %upto = kir.binary add %i, %c1 : index
    %tri = kir.domain %c0 to %upto
    kir.parallel %tri {
    ^bb0(%j: index):
      kir.store %one, %x[%i, %j] : f32, !kir.view<f32, [N, N], inout>[index, index]
      kir.yield
    }
    kir.yield
  }
  kir.parallel %dn {
  ^bb0(%i: index):
    %old = kir.load %x[%i, %i] : !kir.view<f32, [N, N], inout>[index, index] -> f32
    kir.parallel %dn {
    ^bb0(%j: index):
      kir.store %old, %x[%i, %j] : f32, !kir.view<f32, [N, N], inout>[index, index]
      kir.yield
    }
    kir.yield
  }
  kir.parallel %dn {
  ^bb0(%i: index):
    kir.parallel %dn {
    ^bb0(%j: index):
      kir.store %one, %x[%i, %j] : f32, !kir.view<f32, [N, N], inout>[index, index]
      kir.yield
    }
    kir.store %one, %z[%i] : f32, !kir.view<f32, [N], out>[index]
    kir.yield
  }
  kir.return
}
