// RUN: tessel-opt %s -split-input-file --kir-to-pgpu --verify-diagnostics | FileCheck %s
// COM: In-place updates at kernel level (seed 000 §4: KIR values have one element per position). A view read
// COM: by replayed values may be written by one workset of plain stores over coordinates C when every read
// COM: of it is a load at C feeding only elementwise ops into that workset's stores: each instance reads and
// COM: writes its own elements. A read before the first store of the view is realized before any store; a
// COM: read after one sees the stored value (forwarded). A reduction over the view (it reads every element)
// COM: must not be written in place: the error stays.

// CHECK-LABEL: pgpu.kernel @scale_in_place
// CHECK: %[[OLD:.*]] = pgpu.load %p
// CHECK: %[[G:.*]] = pgpu.load %g
// CHECK: %[[Q:.*]] = pgpu.binary mul %[[G]]
// CHECK: pgpu.store %[[Q]], %q
// CHECK-NOT: pgpu.load %q
// CHECK: %[[Z:.*]] = pgpu.binary mul %[[Q]]
// CHECK: pgpu.binary add %[[OLD]], %[[Z]]
// CHECK: pgpu.store {{.*}}, %p
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @scale_in_place(%p: !kir.view<f32, [N], inout>, %q: !kir.view<f32, [N], inout>, %g: !kir.view<f32, [N], in>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 2.000000e+00 : f32
    %2 = kir.broadcast %cst over(%1) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %3 = kir.broadcast %cst_0 over(%1) dims [] : f32 -> tensor<?xf32>
    %4 = kir.load %p[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %5 = kir.load %g[%1] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %6 = kir.binary mul %5, %2 : tensor<?xf32>
    kir.store %6, %q[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    %7 = kir.load %q[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %8 = kir.binary mul %7, %3 : tensor<?xf32>
    %9 = kir.binary add %4, %8 : tensor<?xf32>
    %10 = kir.load %g[%1] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %11 = kir.binary add %9, %10 : tensor<?xf32>
    kir.store %11, %p[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    kir.return
  }
}

// -----

module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @normalize_in_place(%p: !kir.view<f32, [N], inout>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %2 = kir.load %p[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %3 = kir.reduce %2 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %6 = kir.binary add %arg0, %arg1 : f32
      kir.yield %6 : f32
    }
    %4 = kir.broadcast %3 over(%1) dims [] : f32 -> tensor<?xf32>
    %5 = kir.binary div %2, %4 : tensor<?xf32>
    // expected-error @+1 {{this workset writes a view that values before the worksets read}}
    kir.store %5, %p[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    kir.return
  }
}
