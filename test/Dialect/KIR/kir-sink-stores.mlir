// RUN: tessel-opt %s -split-input-file -kir-sink-stores | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-sink-stores -kir-to-pgpu -verify-diagnostics > /dev/null

// COM: An in-place update that keeps using the value it read (fused add + RMSNorm: r[b] = x[b] + r[b],
// COM: then a norm of the sum): the store to %r moves after the last use of the sum, so construction
// COM: (which realizes a read where its value is used) reads r before the store, as KIR does.
// CHECK-LABEL: kir.kernel @update
// CHECK: %[[OLD:.*]] = kir.load %r
// CHECK: %[[S:.*]] = kir.binary add %{{.*}}, %[[OLD]]
// CHECK: %[[SQ:.*]] = kir.binary mul %[[S]], %[[S]]
// CHECK: kir.reduce %[[SQ]]
// CHECK: kir.store %{{.*}}, %z
// CHECK-NEXT: kir.store %[[S]], %r
// CHECK-NEXT: kir.yield
kir.kernel @update(%x: !kir.view<f32, [B, D], in>, %r: !kir.view<f32, [B, D], inout>, %z: !kir.view<f32, [B, D], out>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %nb = kir.extent "B"
  %nd = kir.extent "D"
  %rows = kir.domain %c0 to %nb
  %dims = kir.domain %c0 to %nd
  kir.parallel %rows {
  ^bb0(%b: index):
    %xv = kir.load %x[%b, %dims] : !kir.view<f32, [B, D], in>[index, !kir.domain] -> tensor<?xf32>
    %old = kir.load %r[%b, %dims] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
    %s = kir.binary add %xv, %old : tensor<?xf32>
    kir.store %s, %r[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
    %sq = kir.binary mul %s, %s : tensor<?xf32>
    %ss = kir.reduce %sq axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %c: f32):
      %t = kir.binary add %a, %c : f32
      kir.yield %t : f32
    }
    %n = kir.broadcast %ss over(%dims) dims [] : f32 -> tensor<?xf32>
    %y = kir.binary div %s, %n : tensor<?xf32>
    kir.store %y, %z[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not move: a read of the view between the store and the last use of the old value (it reads
// COM: the stored values, as written); construction then refuses the old value's late use at the read.
// CHECK-LABEL: kir.kernel @reread
// CHECK: %[[OLD2:.*]] = kir.load %r
// CHECK-NEXT: kir.store %[[OLD2]], %z
// CHECK: %[[D:.*]] = kir.binary mul %[[OLD2]]
// CHECK-NEXT: kir.store %[[D]], %r
// CHECK-NEXT: %[[NEW:.*]] = kir.load %r
kir.kernel @reread(%r: !kir.view<f32, [B, D], inout>, %z: !kir.view<f32, [B, D], out>, %w: !kir.view<f32, [B, D], out>) {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %nb = kir.extent "B"
  %nd = kir.extent "D"
  %rows = kir.domain %c0 to %nb
  %dims = kir.domain %c0 to %nd
  kir.parallel %rows {
  ^bb0(%b: index):
    // expected-error @+1 {{this read of the view is used after a store to the same view}}
    %old = kir.load %r[%b, %dims] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
    kir.store %old, %z[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
    %t = kir.broadcast %two over(%dims) dims [] : f32 -> tensor<?xf32>
    %d = kir.binary mul %old, %t : tensor<?xf32>
    // expected-note @+1 {{the store}}
    kir.store %d, %r[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
    %new = kir.load %r[%b, %dims] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
    // expected-note @+1 {{a use after it}}
    %both = kir.binary add %new, %old : tensor<?xf32>
    kir.store %both, %w[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
    kir.yield
  }
  kir.return
}
