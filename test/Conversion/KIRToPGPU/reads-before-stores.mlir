// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: A tensor read of a view in a kir.parallel member whose value is used after a store to the
// COM: same view: construction realizes the elements where they are used, after the store, so it
// COM: would read the stored values (the KIR interpreter reads the old ones). Refused at the read.
module {
  kir.kernel @reuse(%y: !kir.view<f32, [B, D], inout>, %z: !kir.view<f32, [B, D], out>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant 2.0 : f32
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %rows = kir.domain %c0 to %nb
    %dims = kir.domain %c0 to %nd
    kir.parallel %rows {
    ^bb0(%b: index):
      // expected-error @+1 {{this read of the view is used after a store to the same view}}
      %r = kir.load %y[%b, %dims] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %t = kir.broadcast %two over(%dims) dims [] : f32 -> tensor<?xf32>
      %r2 = kir.binary mul %r, %t : tensor<?xf32>
      %zs = kir.broadcast %zero over(%dims) dims [] : f32 -> tensor<?xf32>
      // expected-note @+1 {{the store}}
      kir.store %zs, %y[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      // expected-note @+1 {{a use after it}}
      kir.store %r2, %z[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not refuse: the read's uses all come before the store (an in-place update, and a second
// COM: output computed from the old values before the view is overwritten).
// CHECK-LABEL: pgpu.kernel @update
module {
  kir.kernel @update(%y: !kir.view<f32, [B, D], inout>, %z: !kir.view<f32, [B, D], out>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant 2.0 : f32
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %rows = kir.domain %c0 to %nb
    %dims = kir.domain %c0 to %nd
    kir.parallel %rows {
    ^bb0(%b: index):
      %r = kir.load %y[%b, %dims] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %t = kir.broadcast %two over(%dims) dims [] : f32 -> tensor<?xf32>
      %r2 = kir.binary mul %r, %t : tensor<?xf32>
      kir.store %r, %z[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.store %r2, %y[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
